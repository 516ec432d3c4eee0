import type { Knex } from 'knex';

/**
 * The audit archive's manifest (schema `audit`): one row per organization per UTC day whose sealed
 * records were compacted into a Parquet day file in `core.blob` — the file's key, chain positions,
 * hashes, size and SHA-256. The primary key (org, day) is what lets one file exist per day even when
 * two runners compact the same day. A row is written only after the stored file was read back and
 * verified. `compaction_runs` records which nightly run queued its successor (one per UTC day).
 * See docs/audit.md "Archive: day files".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').createTable('day_files', (t) => {
    t.uuid('org_id').notNullable();
    t.string('day', 10).notNullable();
    t.text('blob_key').notNullable();
    t.bigInteger('first_seq').notNullable();
    t.bigInteger('last_seq').notNullable();
    t.text('prev_hash').notNullable();
    t.text('head_hash').notNullable();
    t.integer('row_count').notNullable();
    t.bigInteger('byte_size').notNullable();
    t.text('sha256').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'day']);
  });
  await knex.schema.withSchema('audit').createTable('compaction_runs', (t) => {
    t.string('day', 10).primary();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').dropTable('compaction_runs');
  await knex.schema.withSchema('audit').dropTable('day_files');
}
