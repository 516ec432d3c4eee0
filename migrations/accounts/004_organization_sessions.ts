import type { Knex } from 'knex';

/**
 * Accounts an organization's identity provider made, and sessions that reach one organization only.
 *
 * - `accounts.federated_org_id`: set on an account created by an organization's IdP sign-in (JIT)
 *   or SCIM provisioning. Such an account belongs to that organization's directory, not to Aerie at
 *   large: its address was vouched for by the tenant, never proven to Aerie. An Aerie account (null
 *   here) keeps its address unique among Aerie accounts; a federated account's address is unique
 *   within its organization only, so a later registration of the address at Aerie gets an account
 *   of its own instead of the one the tenant made.
 * - `accounts.sessions.org_id`: an organization session (opened through that organization's IdP):
 *   it reaches only that organization's routes.
 * @see docs/api/federation.md "Organization sessions"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').alterTable('accounts', (t) => {
    t.uuid('federated_org_id');
  });
  await knex.schema.withSchema('accounts').alterTable('accounts', (t) => t.dropUnique(['email']));
  await knex.raw('CREATE UNIQUE INDEX accounts_email_aerie ON accounts.accounts (email) WHERE federated_org_id IS NULL');
  await knex.raw('CREATE UNIQUE INDEX accounts_email_federated ON accounts.accounts (federated_org_id, email) WHERE federated_org_id IS NOT NULL');
  await knex.schema.withSchema('accounts').alterTable('sessions', (t) => {
    t.uuid('org_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').alterTable('sessions', (t) => t.dropColumn('org_id'));
  await knex.raw('DROP INDEX accounts.accounts_email_federated');
  await knex.raw('DROP INDEX accounts.accounts_email_aerie');
  await knex.raw('DELETE FROM accounts.accounts WHERE federated_org_id IS NOT NULL');
  await knex.schema.withSchema('accounts').alterTable('accounts', (t) => {
    t.dropColumn('federated_org_id');
    t.unique(['email']);
  });
}
