import type { Knex } from 'knex';

/**
 * End users' sign-in codes counted by requester (SHA-256 of the asking IPv4 address or IPv6 /64),
 * so a stranger's code requests use up only their own hourly budget, and wrong codes one row each
 * (`login_code_misses`), from which an address's guessing budget is counted over a rolling hour,
 * everyone together and per requester. Codes from before this migration have no requester and count
 * for every requester. Misses older than a day are swept with the codes.
 * @see docs/api/signin.md "Email code"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').alterTable('login_codes', (t) => {
    t.text('requester');
  });
  await knex.schema.withSchema('oidc').createTable('login_code_misses', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('email_normalized').notNullable();
    t.text('requester').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'email_normalized', 'created_at']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('login_code_misses');
  await knex.schema.withSchema('oidc').alterTable('login_codes', (t) => t.dropColumn('requester'));
}
