import type { Knex } from 'knex';

/**
 * Identities of an organization's IdP that people linked to their own Aerie accounts, and the link
 * flows in progress.
 *
 * - `federation.identity_links`: one row per (organization, IdP issuer, subject) → account. Written
 *   only from the person's own session with a passkey seal, never by an assertion alone; an IdP
 *   sign-in into an Aerie account goes through such a row or not at all.
 * - `federation.signin_flows.link_account_id`: set on a flow a person started to link their IdP
 *   identity (the callback records the link instead of looking the person up).
 * @see docs/api/federation.md "Linking an Aerie account"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').createTable('identity_links', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    /** The OpenID issuer or the SAML IdP entity id. */
    t.text('issuer').notNullable();
    /** `sub` (OpenID) or the NameID (SAML). */
    t.text('subject').notNullable();
    t.uuid('account_id').notNullable();
    /** The address the IdP asserted when the link was made (display only). */
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.unique(['org_id', 'issuer', 'subject']);
    t.unique(['org_id', 'account_id', 'issuer']);
    t.index(['account_id']);
  });
  await knex.schema.withSchema('federation').alterTable('signin_flows', (t) => {
    t.uuid('link_account_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').alterTable('signin_flows', (t) => t.dropColumn('link_account_id'));
  await knex.schema.withSchema('federation').dropTable('identity_links');
}
