import type { Knex } from 'knex';

/**
 * Who asked for each email code (SHA-256 of the requesting IP address): limits and superseding
 * count per address and requester, so a stranger asking for codes cannot use up or cancel the
 * owner's. Codes from before this migration have none and count for every requester.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').alterTable('email_codes', (t) => {
    t.text('requester');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('accounts').alterTable('email_codes', (t) => t.dropColumn('requester'));
}
