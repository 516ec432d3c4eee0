import type { Knex } from 'knex';

/**
 * The file box: one row per file (its bytes live in core.blob under `blob_key`), and one storage row
 * per organization whose `used_bytes` is both the quota gate and the usage figure (uploads reserve
 * with a conditional increment, trash releases). Organization ids point at the orgs plugin's rows (no
 * cross-schema foreign keys); every query filters by `org_id`.
 * @see docs/api/files.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('files').createTable('files', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('file_name').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('sha256').notNullable();
    t.text('blob_key').notNullable();
    t.text('scope').notNullable().defaultTo('free');
    t.text('share_mode').notNullable().defaultTo('restricted');
    t.uuid('share_token').notNullable().unique();
    t.boolean('sealed').notNullable().defaultTo(false); // set by approvals when the document is sealed
    t.text('uploaded_by').notNullable(); // the API key id (or account id) that uploaded it
    t.timestamp('uploaded_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.index(['org_id', 'deleted_at', 'uploaded_at']);
  });
  await knex.schema.withSchema('files').createTable('org_storage', (t) => {
    t.uuid('org_id').primary();
    t.bigInteger('used_bytes').notNullable().defaultTo(0);
    t.boolean('block_external_sharing').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('files').dropTable('org_storage').dropTable('files');
}
