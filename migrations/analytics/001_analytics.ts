import type { Knex } from 'knex';

/**
 * Audit analytics (schema `analytics`): daily rollups computed from audit day files (written once:
 * the primary key is the organization, the app group — `''` for the whole organization — and the
 * day), the nightly rollup job's run claims, and the hot end-user store — end users' sign-ins,
 * failed attempts and signups projected from the sealed chain, kept 181 days, with the projector's
 * cursor per organization, and each app group's event-collection switch. Every table carries `org_id` and every query filters by it.
 * @see docs/api/audit-analytics.md
 */
export async function up(knex: Knex): Promise<void> {
  const s = () => knex.schema.withSchema('analytics');
  await s().createTable('rollups', (t) => {
    t.uuid('org_id').notNullable();
    t.text('app_group_id').notNullable(); // '' = the whole organization
    t.string('day', 10).notNullable();
    t.jsonb('body').notNullable();
    t.text('day_file_sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'app_group_id', 'day']);
  });
  await s().createTable('rollup_runs', (t) => {
    t.string('day', 10).primary();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await s().createTable('end_user_activity', (t) => {
    t.uuid('org_id').notNullable();
    t.bigInteger('seq').notNullable(); // the audit record's position on the organization's chain
    t.text('kind').notNullable(); // login | failure | signup
    t.text('app_group_id');
    t.text('end_user_id');
    t.text('email');
    t.text('method');
    t.text('reason');
    t.text('ip');
    t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable();
    t.primary(['org_id', 'seq']);
    t.index(['occurred_at']); // the nightly purge past 181 days
    t.index(['org_id', 'app_group_id', 'email', 'occurred_at']); // the forensic trail
  });
  // The dashboard's scans by kind and time read the end user and app group from the index alone.
  await knex.raw('create index end_user_activity_kind on analytics.end_user_activity (org_id, kind, occurred_at) include (end_user_id, app_group_id)');
  await s().createTable('app_group_settings', (t) => {
    t.uuid('org_id').notNullable();
    t.uuid('app_group_id').notNullable();
    t.boolean('events_enabled').notNullable(); // no row: collection is on
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'app_group_id']);
  });
  await s().createTable('activity_cursors', (t) => {
    t.uuid('org_id').primary();
    t.bigInteger('seq').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['activity_cursors', 'app_group_settings', 'end_user_activity', 'rollup_runs', 'rollups']) await knex.schema.withSchema('analytics').dropTable(table);
}
