import type { Knex } from 'knex';

/**
 * The nightly rollup run is a `core.jobs` schedule now (timed once across processes, its runs recorded
 * in `core.job_schedules`): `rollup_runs`, in which each run claimed its UTC day before queuing its
 * successor, goes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('analytics').dropTableIfExists('rollup_runs');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('analytics').createTable('rollup_runs', (t) => {
    t.string('day', 10).primary();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}
