import type { Knex } from 'knex';

/**
 * Social sign-in on the hosted login: an app group's connections to upstream OpenID providers
 * (`social_connections`, the client secret envelope-encrypted, endpoints from discovery), and the
 * sign-ins sent to one (`social_flows`: single use, 10 minutes, found by the SHA-256 of `state` and
 * bound to the browser's provider interaction).
 * @see docs/api/signin.md "Social sign-in"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('social_connections', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('app_group_id').notNullable();
    t.text('provider').notNullable();
    t.text('issuer').notNullable();
    t.text('authorization_endpoint').notNullable();
    t.text('token_endpoint').notNullable();
    t.text('jwks_uri').notNullable();
    t.text('client_id').notNullable();
    t.text('client_secret_ciphertext');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'app_group_id', 'provider']);
  });
  await knex.schema.withSchema('oidc').createTable('social_flows', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('state_hash').notNullable().unique();
    t.text('interaction_uid').notNullable();
    t.text('client_key').notNullable();
    t.text('provider').notNullable();
    t.text('nonce').notNullable();
    t.text('code_verifier').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('social_flows');
  await knex.schema.withSchema('oidc').dropTable('social_connections');
}
