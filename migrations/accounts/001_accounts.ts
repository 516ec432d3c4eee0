import type { Knex } from 'knex';

/** Accounts, one-time email codes and session tokens (hashes only). */
export async function up(knex: Knex): Promise<void> {
  const s = knex.schema.withSchema('accounts');
  await s.createTable('accounts', (t) => {
    t.uuid('id').primary();
    t.text('email').notNullable().unique();
    t.text('display_name');
    t.timestamp('email_verified_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.withSchema('accounts').createTable('email_codes', (t) => {
    t.uuid('id').primary();
    t.text('email').notNullable();
    t.text('code_hash').notNullable();
    t.text('display_name');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['email', 'created_at']);
  });
  await knex.schema.withSchema('accounts').createTable('sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('id').inTable('accounts.accounts').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('absolute_expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.text('user_agent');
    t.text('ip');
    t.index(['account_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').dropTable('sessions').dropTable('email_codes').dropTable('accounts');
}
