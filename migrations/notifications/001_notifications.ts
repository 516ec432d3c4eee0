import type { Knex } from 'knex';

/**
 * Notifications of accounts, the organization announcements that fan out to them, announcement
 * attachments and each organization's notification settings. Account and organization ids point at
 * the accounts and orgs plugins' rows (no cross-schema foreign keys).
 * @see docs/api/notifications.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('notifications').createTable('announcements', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('sender_account_id').notNullable();
    t.text('recipient_selection').notNullable(); // 'all' | 'selected'
    t.integer('recipient_count').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'created_at']);
  });

  await knex.schema.withSchema('notifications').createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('account_id').notNullable(); // the recipient
    t.uuid('org_id'); // null for an account's own notices
    t.text('category').notNullable();
    t.text('title').notNullable();
    t.text('body').notNullable();
    t.text('link');
    t.uuid('announcement_id').references('id').inTable('notifications.announcements');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('read_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.index(['account_id', 'created_at']);
    t.index(['announcement_id', 'account_id']);
  });

  await knex.schema.withSchema('notifications').createTable('attachments', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('uploaded_by').notNullable();
    t.text('blob_key').notNullable();
    t.text('file_name').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.text('sha256').notNullable();
    t.uuid('announcement_id').references('id').inTable('notifications.announcements'); // null until sent
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['org_id', 'announcement_id']);
  });

  await knex.schema.withSchema('notifications').createTable('settings', (t) => {
    t.uuid('org_id').primary();
    t.jsonb('email_categories').notNullable();
    t.text('digest').notNullable();
    t.uuid('updated_by');
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('notifications').dropTable('settings').dropTable('attachments').dropTable('notifications').dropTable('announcements');
}
