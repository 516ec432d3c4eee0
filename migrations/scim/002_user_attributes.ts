import type { Knex } from 'knex';

/**
 * What an identity provider sets on a User beyond the account: `externalId`, the name parts and a
 * display name for this organization (the account's own display name is the person's and is never
 * changed by one organization's provisioning).
 * @see docs/api/scim.md "Users"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').createTable('user_attributes', (t) => {
    t.uuid('membership_id').primary();
    t.uuid('org_id').notNullable();
    t.text('external_id');
    t.text('display_name');
    t.text('given_name');
    t.text('family_name');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'external_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').dropTable('user_attributes');
}
