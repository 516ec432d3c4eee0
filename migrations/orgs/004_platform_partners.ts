import type { Knex } from 'knex';

/**
 * Platform partners: organizations a platform administrator marked so. A partner's organization-wide
 * API key may create app groups in organizations its end users own (`/api/public/v1/orgs/app-groups/create`).
 * @see docs/api/orgs.md "Platform partners"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').alterTable('organizations', (t) => {
    t.boolean('platform_partner').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').alterTable('organizations', (t) => t.dropColumn('platform_partner'));
}
