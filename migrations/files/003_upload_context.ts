import type { Knex } from 'knex';

/**
 * The app group a console upload was made for (`POST /api/org/{slug}/files?appGroupId=`), null
 * otherwise; listed by it through a partial index. (A meeting's files carry it in `scope`,
 * `meeting:{meetingId}`.)
 * @see docs/api/files.md "Console"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('files').alterTable('files', (t) => {
    t.uuid('app_group_id');
  });
  await knex.raw('create index files_app_group on files.files (org_id, app_group_id) where app_group_id is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists files.files_app_group');
  await knex.schema.withSchema('files').alterTable('files', (t) => {
    t.dropColumn('app_group_id');
  });
}
