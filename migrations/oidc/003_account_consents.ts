import type { Knex } from 'knex';

/**
 * Consents given for sign-in with an Aerie account: the person (account) agreed to share their name
 * and email with one app group, becoming that end user of the group's organization.
 * @see docs/api/signin.md "Sign-in with an Aerie account"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').createTable('account_consents', (t) => {
    t.uuid('org_id').notNullable();
    t.uuid('app_group_id').notNullable();
    t.uuid('account_id').notNullable();
    t.uuid('end_user_id').notNullable();
    t.timestamp('consented_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'app_group_id', 'account_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('oidc').dropTable('account_consents');
}
