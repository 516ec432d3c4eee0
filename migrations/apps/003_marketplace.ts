import type { Knex } from 'knex';

/**
 * The marketplace's first parts: whether a platform administrator listed an app group, and which
 * other organizations installed it (their people may then carry them in `tenant_orgs` when signing
 * in with their Aerie account).
 * @see docs/api/apps.md "Marketplace listing and installations"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').alterTable('app_groups', (t) => {
    t.timestamp('listed_at', { useTz: true });
  });
  await knex.schema.withSchema('apps').createTable('installations', (t) => {
    t.uuid('org_id').notNullable(); // the installing organization
    t.uuid('app_group_id').notNullable().references('id').inTable('apps.app_groups').onDelete('CASCADE');
    t.uuid('installed_by');
    t.timestamp('installed_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'app_group_id']);
    t.index(['app_group_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').dropTable('installations');
  await knex.schema.withSchema('apps').alterTable('app_groups', (t) => t.dropColumn('listed_at'));
}
