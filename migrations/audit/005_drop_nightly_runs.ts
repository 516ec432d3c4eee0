import type { Knex } from 'knex';

/**
 * The nightly day-file compaction and retention runs are `core.jobs` schedules now (timed once across
 * processes, their runs recorded in `core.job_schedules`): the tables in which each run claimed its
 * UTC day before queuing its successor, `compaction_runs` and `retention_runs`, go.
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['compaction_runs', 'retention_runs']) await knex.schema.withSchema('audit').dropTableIfExists(table);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['compaction_runs', 'retention_runs']) {
    await knex.schema.withSchema('audit').createTable(table, (t) => {
      t.string('day', 10).primary();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
  }
}
