import type { Knex } from 'knex';

/**
 * Passkeys (WebAuthn credentials) of accounts, the personal seal binding, the account activity log,
 * WebAuthn registration and sign-in challenges, and the per-session CSRF token of cookie sessions.
 * @see spec 01 "Authentication", "Events"
 */
export async function up(knex: Knex): Promise<void> {
  const s = () => knex.schema.withSchema('accounts');
  await s().createTable('passkeys', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('id').inTable('accounts.accounts').onDelete('CASCADE');
    /** base64url credential id (`RegistrationResponseJSON.id`). */
    t.text('credential_id').notNullable().unique();
    /** COSE_Key bytes. */
    t.binary('public_key').notNullable();
    /** lowercase hex SHA-256 of `public_key`. */
    t.text('fingerprint').notNullable();
    t.bigInteger('counter').notNullable().defaultTo(0);
    t.jsonb('transports').notNullable();
    t.text('name');
    t.text('aaguid');
    t.text('device_type');
    t.boolean('backed_up').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.index(['account_id']);
  });
  await s().createTable('personal_seals', (t) => {
    t.uuid('account_id').primary().references('id').inTable('accounts.accounts').onDelete('CASCADE');
    t.uuid('passkey_id').notNullable().unique().references('id').inTable('accounts.passkeys').onDelete('CASCADE');
    t.timestamp('bound_at', { useTz: true }).notNullable();
  });
  await s().createTable('activity_log', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('id').inTable('accounts.accounts').onDelete('CASCADE');
    t.text('event_type').notNullable();
    t.text('method');
    t.text('key_id');
    t.text('key_fingerprint');
    t.text('ip');
    t.text('user_agent');
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    /** Insertion order: rows of one instant keep the order they were written in. */
    t.specificType('seq', 'bigint generated always as identity');
    t.index(['account_id', 'seq']);
  });
  await s().createTable('webauthn_challenges', (t) => {
    t.uuid('id').primary();
    /** `registration` or `authentication` (passkey sign-in). */
    t.text('kind').notNullable();
    /** The registering account; null for a sign-in challenge (discoverable credentials). */
    t.uuid('account_id').references('id').inTable('accounts.accounts').onDelete('CASCADE');
    t.text('challenge').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.index(['expires_at']);
  });
  await s().alterTable('sessions', (t) => {
    /** SHA-256 of the CSRF token of a cookie session; null for bearer sessions. */
    t.text('csrf_token_hash');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').alterTable('sessions', (t) => t.dropColumn('csrf_token_hash'));
  await knex.schema.withSchema('accounts')
    .dropTable('webauthn_challenges').dropTable('activity_log').dropTable('personal_seals').dropTable('passkeys');
}
