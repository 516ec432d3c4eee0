import type { Knex } from 'knex';

/**
 * App groups get hosted-login branding, the passkey RP ID, the service model and the field;
 * applications get their SAML service-provider registration.
 * @see docs/api/apps.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').alterTable('app_groups', (t) => {
    t.jsonb('branding').notNullable().defaultTo('{}'); // members left out read as their defaults
    t.text('passkey_rp_id');
    t.text('service_model'); // SaaS | PaaS
    t.text('field');
  });
  await knex.schema.withSchema('apps').alterTable('applications', (t) => {
    t.jsonb('saml'); // { entityId, acsUrl } or null
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').alterTable('applications', (t) => t.dropColumn('saml'));
  await knex.schema.withSchema('apps').alterTable('app_groups', (t) => {
    t.dropColumn('branding');
    t.dropColumn('passkey_rp_id');
    t.dropColumn('service_model');
    t.dropColumn('field');
  });
}
