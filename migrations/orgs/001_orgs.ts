import type { Knex } from 'knex';

/** Organizations, memberships and enabled add-ons. Account ids point at the accounts plugin's rows. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').createTable('organizations', (t) => {
    t.uuid('id').primary();
    t.text('slug').notNullable().unique();
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.text('plan_key').notNullable();
    t.uuid('created_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.schema.withSchema('orgs').createTable('memberships', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().references('id').inTable('orgs.organizations').onDelete('CASCADE');
    t.uuid('account_id').notNullable();
    t.text('role').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'account_id']);
    t.index(['account_id']);
  });
  await knex.schema.withSchema('orgs').createTable('addons', (t) => {
    t.uuid('org_id').notNullable().references('id').inTable('orgs.organizations').onDelete('CASCADE');
    t.text('addon_key').notNullable();
    t.timestamp('enabled_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'addon_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('orgs').dropTable('addons').dropTable('memberships').dropTable('organizations');
}
