import type { Knex } from 'knex';

/**
 * Invitations (single-use token, SHA-256 at rest, expiry) and member profiles (reporting manager,
 * director fields). Organization, role and membership ids point at the orgs and rbac plugins' rows
 * (no cross-schema foreign keys).
 * @see spec 01 "Members"; docs/api/members.md "Invitation states"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('members').createTable('invitations', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('email').notNullable(); // lowercase
    t.uuid('role_id').notNullable();
    t.text('role_key').notNullable(); // at invitation time, for display and audit
    t.uuid('reporting_manager_id');
    t.boolean('board_chairman');
    t.decimal('board_share_percent', 7, 4);
    t.text('status').notNullable(); // pending | accepted | declined | cancelled | expired
    t.text('token_hash').notNullable().unique(); // SHA-256 hex of the current token
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.uuid('invited_by');
    t.integer('send_count').notNullable();
    t.timestamp('last_sent_at', { useTz: true }).notNullable();
    t.timestamp('responded_at', { useTz: true });
    t.uuid('membership_id'); // set on acceptance
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id', 'created_at']);
  });
  // At most one open invitation per address and organization.
  await knex.raw("create unique index invitations_open_email on members.invitations (org_id, email) where status = 'pending'");

  await knex.schema.withSchema('members').createTable('profiles', (t) => {
    t.uuid('membership_id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('reporting_manager_id');
    t.text('title');
    t.boolean('board_chairman');
    t.decimal('board_share_percent', 7, 4);
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('members').dropTable('profiles').dropTable('invitations');
}
