import type { Knex } from 'knex';

/**
 * SCIM bearer tokens of an organization (stored hashed; the value is shown once).
 * @see docs/api/scim.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').createTable('tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('name').notNullable();
    t.text('token_hash').notNullable().unique(); // SHA-256 hex of scim_…
    t.text('created_by_type').notNullable();
    t.text('created_by_id').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['org_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('scim').dropTable('tokens');
}
