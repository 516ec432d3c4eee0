import type { Knex } from 'knex';

/**
 * Members' active time in the console (schema `audit`), fed by `POST /api/v1/admin/audit/heartbeat`
 * (docs/api/audit.md "Heartbeat"):
 * - `member_presence`: per organization and account, the last beat that was counted — its row lock
 *   serialises a member's concurrent beats, so two beats never count the same interval;
 * - `member_activity`: per organization, account and UTC day (`YYYY-MM-DD`), the active time credited
 *   that day in milliseconds. `GET /stats` sums it over a window (primary key prefix `org_id`, then
 *   the `(org_id, day)` index).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('audit').createTable('member_presence', (t) => {
    t.uuid('org_id').notNullable();
    t.uuid('account_id').notNullable();
    t.timestamp('last_beat_at', { useTz: true, precision: 3 }).notNullable();
    t.primary(['org_id', 'account_id']);
  });
  await knex.schema.withSchema('audit').createTable('member_activity', (t) => {
    t.uuid('org_id').notNullable();
    t.uuid('account_id').notNullable();
    t.string('day', 10).notNullable();
    t.bigInteger('active_ms').notNullable();
    t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
    t.primary(['org_id', 'account_id', 'day']);
    t.index(['org_id', 'day']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['member_activity', 'member_presence']) await knex.schema.withSchema('audit').dropTable(table);
}
