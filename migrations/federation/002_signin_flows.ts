import type { Knex } from 'knex';

/**
 * Sign-in flows in progress: one row per `/idp/{slug}/login`, bound to the browser by the SHA-256 of
 * its flow cookie, holding the OpenID `state`, `nonce` and PKCE verifier or the SAML request id,
 * single use (`consumed_at`) and short-lived (`expires_at`).
 * @see docs/api/federation.md "Signing in"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').createTable('signin_flows', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('connection_id').notNullable();
    t.text('binding_hash').notNullable().unique();
    t.text('protocol').notNullable(); // oidc | saml
    t.text('state');
    t.text('nonce');
    t.text('code_verifier');
    t.text('saml_request_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.index(['expires_at']);
  });
  await knex.raw('CREATE UNIQUE INDEX signin_flows_saml_request ON federation.signin_flows (saml_request_id) WHERE saml_request_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('federation').dropTable('signin_flows');
}
