import type { Knex } from 'knex';

/**
 * Retention enforcement (schema `audit`), see docs/audit.md "Retention":
 * - `purge_horizons`: per organization, through which `seq` the hot rows were purged from
 *   `core.audit_events` — that record's chainHash and sealedAt, the day file it is in, and the
 *   signed checkpoint (compact JWS) on it — where stored-chain verification starts after a purge;
 * - `retention_cohorts`: one row per purge cohort of an organization — the events that occurred
 *   up to `through_occurred_at`, announced to the Owners by a first notice (`first_notice_at`, the
 *   row's insert claims it) and a final one (`final_notice_at`), purged from `purge_at` on
 *   (`purged_at` once done). The primary key is what lets one runner send a notice;
 * - `retention_runs`: which daily run queued its successor (one per UTC day).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').createTable('purge_horizons', (t) => {
    t.uuid('org_id').primary();
    t.bigInteger('through_seq').notNullable();
    t.text('chain_hash').notNullable();
    t.timestamp('sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.string('day', 10).notNullable();
    t.text('checkpoint_jws').notNullable();
    t.bigInteger('purged_rows').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
  await knex.schema.withSchema('audit').createTable('retention_cohorts', (t) => {
    t.uuid('org_id').notNullable();
    t.integer('cohort').notNullable();
    t.timestamp('through_occurred_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('purge_at', { useTz: true }).notNullable();
    t.timestamp('first_notice_at', { useTz: true }).notNullable();
    t.timestamp('final_notice_at', { useTz: true });
    t.timestamp('purged_at', { useTz: true });
    t.primary(['org_id', 'cohort']);
  });
  await knex.schema.withSchema('audit').createTable('retention_runs', (t) => {
    t.string('day', 10).primary();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['retention_runs', 'retention_cohorts', 'purge_horizons']) await knex.schema.withSchema('audit').dropTable(table);
}
