import type { Knex } from 'knex';

/**
 * End users' passkeys (separate from Aerie accounts' passkeys) and the WebAuthn challenges of the
 * hosted login. A passkey belongs to one end user of one organization and one RP ID (the app group's
 * `passkeyRpId`, or Aerie's own).
 * @see docs/api/signin.md "Passkeys"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('passkeys', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('end_user_id').notNullable();
    t.text('rp_id').notNullable();
    t.text('credential_id').notNullable(); // base64url
    t.binary('public_key').notNullable(); // COSE
    t.bigInteger('counter').notNullable();
    t.jsonb('transports').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.unique(['org_id', 'rp_id', 'credential_id']);
    t.index(['org_id', 'end_user_id']);
  });
  await knex.schema.withSchema('oidc').createTable('passkey_challenges', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('interaction_uid').notNullable();
    t.text('purpose').notNullable(); // signin | register
    t.text('challenge').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['org_id', 'interaction_uid', 'purpose']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('passkey_challenges').dropTable('passkeys');
}
