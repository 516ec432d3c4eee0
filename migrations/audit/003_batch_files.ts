import type { Knex } from 'knex';

/**
 * The raw archive's manifest (schema `audit`): one row per batch file — a run of one organization's
 * consecutive sealed records stored in `core.blob` soon after sealing — with its key, seq range,
 * sealing times, size and SHA-256. The primary key (org, first seq) lets one file exist per run when
 * two processes archive the same chain; the highest `last_seq` is the organization's cursor.
 * See docs/audit.md "Archive: batch files".
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').createTable('batch_files', (t) => {
    t.uuid('org_id').notNullable();
    t.bigInteger('first_seq').notNullable();
    t.bigInteger('last_seq').notNullable();
    t.text('blob_key').notNullable();
    t.text('sha256').notNullable();
    t.bigInteger('byte_size').notNullable();
    t.integer('row_count').notNullable();
    t.timestamp('first_sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('last_sealed_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['org_id', 'first_seq']);
    t.index(['org_id', 'last_seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').dropTable('batch_files');
}
