import type { Knex } from 'knex';

/**
 * Wrong email codes, one row each (`accounts.code_misses`): the guessing budget of an address is
 * counted from them over a rolling hour, everyone together and per requester (SHA-256 of the
 * guesser's IPv4 address or IPv6 /64). Rows older than a day are deleted as new ones are written.
 * @see docs/api/accounts.md "Limits"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').createTable('code_misses', (t) => {
    t.uuid('id').primary();
    t.text('email').notNullable();
    t.text('requester').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['email', 'created_at']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').dropTable('code_misses');
}
