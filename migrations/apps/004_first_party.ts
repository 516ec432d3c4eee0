import type { Knex } from 'knex';

/**
 * Whether an application is the organization's own (first-party, the default: its end users sign in
 * without a consent screen) or a third party's the organization registered (the hosted login asks
 * the end user's consent to the scopes it requests).
 * @see docs/api/signin.md "Consent"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').alterTable('applications', (t) => {
    t.boolean('first_party').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').alterTable('applications', (t) => t.dropColumn('first_party'));
}
