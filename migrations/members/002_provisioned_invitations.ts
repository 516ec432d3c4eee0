import type { Knex } from 'knex';

/**
 * Invitations without a proposed role: SCIM provisioning of an address that already has an Aerie
 * account invites that person to join as a plain member (the account is never joined without its
 * owner's consent), so `role_id` and `role_key` may be null.
 * @see docs/api/scim.md "An address that has an Aerie account"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('members').alterTable('invitations', (t) => {
    t.uuid('role_id').nullable().alter();
    t.text('role_key').nullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('members.invitations').whereNull('role_id').delete();
  await knex.schema.withSchema('members').alterTable('invitations', (t) => {
    t.uuid('role_id').notNullable().alter();
    t.text('role_key').notNullable().alter();
  });
}
