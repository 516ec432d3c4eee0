import type { Knex } from 'knex';

/**
 * Lifecycle rules: at most 10 per organization (`files.lifecycle_rules`), run every 12 hours by one
 * `files.lifecycle` job chain per organization whose next due time is `org_storage.lifecycle_next_run_at`
 * (null: no chain). Files gain `last_accessed_at` (upload, download link, share view), which rules
 * measure `unaccessedDays` from, and `storage_class`, which `transition_ia` moves.
 * @see docs/api/files.md "Lifecycle rules"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('files').createTable('lifecycle_rules', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable().index();
    t.text('action').notNullable();
    t.integer('unaccessed_days').notNullable();
    t.text('scope'); // null: all files
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('last_run_at', { useTz: true });
    t.integer('last_run_count');
    t.bigInteger('last_run_bytes');
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
  await knex.schema.withSchema('files').alterTable('files', (t) => {
    t.timestamp('last_accessed_at', { useTz: true });
    t.text('storage_class').notNullable().defaultTo('STANDARD');
  });
  await knex.schema.withSchema('files').alterTable('org_storage', (t) => {
    t.timestamp('lifecycle_next_run_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('files').alterTable('org_storage', (t) => t.dropColumn('lifecycle_next_run_at'));
  await knex.schema.withSchema('files').alterTable('files', (t) => {
    t.dropColumn('last_accessed_at');
    t.dropColumn('storage_class');
  });
  await knex.schema.withSchema('files').dropTable('lifecycle_rules');
}
