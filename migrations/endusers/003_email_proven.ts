import type { Knex } from 'knex';

/**
 * `end_users.email_proven_at`: when Aerie itself proved the end user's address — an emailed sign-in
 * code, an invite link it mailed, or a sign-in with an Aerie account. A tenant's social connection
 * may verify an address for its own application (`email_verified_at`), but only a proof by Aerie
 * lets the address speak for an Aerie account (the owner gate of the public API). Rows from before
 * this migration have none until their next such proof.
 * @see docs/api/public-v1.md "Owner status"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('endusers').alterTable('end_users', (t) => {
    t.timestamp('email_proven_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('endusers').alterTable('end_users', (t) => t.dropColumn('email_proven_at'));
}
