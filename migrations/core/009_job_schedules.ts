import type { Knex } from 'knex';

/**
 * `core.job_schedules`: one row per schedule of `core.jobs` (`name`), with when its latest run started
 * and finished and that run's error (null when it went through). A schedule with `catchUp` compares
 * `last_started_at` with its last time at start. See docs/plugins.md "Schedules".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').createTable('job_schedules', (t) => {
    t.text('name').primary();
    t.timestamp('last_started_at', { useTz: true }).notNullable();
    t.timestamp('last_finished_at', { useTz: true });
    t.text('last_error');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('core').dropTable('job_schedules');
}
