import type { Knex } from 'knex';

/**
 * Single-use step-up challenges (`core.seals`): each is SHA-256 of a canonical line bound to one
 * account, purpose and subject (and, for content-bound purposes, fields and typed inputs); valid
 * 5 minutes and consumed atomically (`consumed_at`), so a replay or a race fails.
 * @see spec 01 "Machine tokens" (`POST /api/passkey/stepup/options`), spec 02 "Approval rules"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').createTable('seal_challenges', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable();
    t.text('purpose').notNullable();
    t.text('subject').notNullable();
    /** base64url(SHA-256(canonical)), as found in `clientDataJSON.challenge`. */
    t.text('challenge').notNullable().unique();
    t.text('canonical').notNullable();
    /** `{nonce, fields}` of the binding as issued. */
    t.jsonb('binding').notNullable();
    /** Person-typed inputs kept for the purpose, `[{key, value}]` (trimmed). */
    t.jsonb('inputs').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.index(['account_id', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('seal_challenges');
}
