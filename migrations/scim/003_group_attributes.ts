import type { Knex } from 'knex';

/**
 * What an identity provider sets on a Group beyond the role: its `externalId`, unique within the
 * organization. The role itself (name, members) is the rbac plugin's.
 * @see docs/api/scim.md "Groups"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').createTable('group_attributes', (t) => {
    t.uuid('role_id').primary();
    t.uuid('org_id').notNullable();
    t.text('external_id');
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'external_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').dropTable('group_attributes');
}
