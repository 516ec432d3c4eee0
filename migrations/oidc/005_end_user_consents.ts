import type { Knex } from 'knex';

/**
 * Consents end users gave on the hosted login to a third-party application (`firstParty: false`):
 * the scopes one end user allowed one client, so the next sign-in asks only for scopes not yet allowed.
 * @see docs/api/signin.md "Consent"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('end_user_consents', (t) => {
    t.uuid('org_id').notNullable();
    t.uuid('end_user_id').notNullable();
    t.string('client_key', 128).notNullable();
    t.jsonb('scopes').notNullable();
    t.timestamp('consented_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'end_user_id', 'client_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('end_user_consents');
}
