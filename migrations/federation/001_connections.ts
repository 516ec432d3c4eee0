import type { Knex } from 'knex';

/**
 * IdP connections: every configuration an organization saved, the active one marked; the database
 * holds at most one active row per organization. Secrets are envelope-encrypted.
 * @see docs/api/federation.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').createTable('connections', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('provider').notNullable(); // custom-oidc | custom-saml | named-*
    t.jsonb('config').notNullable(); // what the API shows (no secret)
    t.text('client_secret_ciphertext');
    t.boolean('is_active').notNullable();
    t.text('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deactivated_at', { useTz: true });
    t.index(['org_id', 'created_at']);
  });
  await knex.raw('CREATE UNIQUE INDEX connections_one_active ON federation.connections (org_id) WHERE is_active');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').dropTable('connections');
}
