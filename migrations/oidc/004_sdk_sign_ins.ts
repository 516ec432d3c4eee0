import type { Knex } from 'knex';

/**
 * Sign-ins through the SDK routes (`/api/public/apps/{applicationKey}/auth/*`): single-page and native
 * applications run the hosted login's methods as JSON and end with an authorization code they
 * exchange at the token endpoint with their PKCE verifier. The handle is stored as SHA-256.
 * @see docs/api/signin.md "SDK routes"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('sdk_sign_ins', (t) => {
    t.uuid('id').primary(); // also the uid login codes are bound to (`sdk:{id}`)
    t.uuid('org_id').notNullable();
    t.text('handle_hash').notNullable().unique();
    t.text('client_key').notNullable();
    t.text('redirect_uri').notNullable();
    t.text('scope').notNullable();
    t.text('code_challenge').notNullable();
    t.text('nonce');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('sdk_sign_ins');
}
