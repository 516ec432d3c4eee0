import type { Knex } from 'knex';

/**
 * Per-organization RS256 signing keys, organization API keys (hashes only) and key revocation
 * markers. Organization ids point at the orgs plugin's rows (no cross-schema foreign keys).
 * @see spec 01 "Organization API key", "Machine token rules"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('keys').createTable('signing_keys', (t) => {
    t.text('kid').primary(); // RFC 7638 JWK thumbprint
    t.uuid('org_id').notNullable();
    t.text('org_slug').notNullable(); // the issuer the key signs for: {base_url}/api/public/orgs/{slug}
    t.text('alg').notNullable();
    t.jsonb('public_jwk').notNullable();
    t.text('private_key_enc').notNullable(); // PKCS#8 PEM, envelope-encrypted (AAD keys.signing_key:<orgId>:<kid>)
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('retired_at', { useTz: true });
    t.index(['org_id']);
  });
  // One active key per organization; lazy creation races are decided by this index.
  await knex.raw('create unique index signing_keys_active_org on keys.signing_keys (org_id) where retired_at is null');
  await knex.raw('create index signing_keys_active_slug on keys.signing_keys (org_slug) where retired_at is null');

  await knex.schema.withSchema('keys').createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('name').notNullable();
    t.text('key_hash').notNullable().unique(); // SHA-256 hex of the ah_live_ value
    t.text('hint').notNullable(); // last 4 characters, to tell keys apart in lists
    t.text('app_group_id');
    t.jsonb('scopes').notNullable();
    t.integer('max_token_lifetime_seconds');
    t.text('service_account_id');
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('rotated_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['org_id', 'created_at']);
  });

  // Spec rule 5: kept for the key's ceiling plus one hour; checked on every machine-token request.
  await knex.schema.withSchema('keys').createTable('api_key_revocations', (t) => {
    t.uuid('key_id').primary();
    t.uuid('org_id').notNullable();
    t.timestamp('revoked_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('keys').dropTable('api_key_revocations').dropTable('api_keys').dropTable('signing_keys');
}
