import type { Knex } from 'knex';

/**
 * Platform-wide signing keys (`core.platform_keys`), today only the audit checkpoint key (ES256):
 * the private JWK envelope-encrypted under the master key (AAD `core.platform_keys:<kid>`), the
 * public JWK published as a JWKS. One active key per purpose (partial unique index), so several
 * processes booting at once agree on one key. Retired keys stay (active false) so old checkpoints
 * still verify.
 * @see spec 01 "Audit", docs/audit.md "Checkpoints"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').createTable('platform_keys', (t) => {
    t.text('kid').primary();
    t.text('purpose').notNullable();
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('private_jwk_enc').notNullable();
    t.boolean('active').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.raw('create unique index platform_keys_one_active on core.platform_keys (purpose) where active');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('platform_keys');
}
