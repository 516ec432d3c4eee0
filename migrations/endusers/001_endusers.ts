import type { Knex } from 'knex';

/**
 * End users of an organization's applications (never members), their app-group access and their
 * invite tokens (SHA-256 at rest, single use). Organization and app-group ids point at the orgs and
 * apps plugins' rows (no cross-schema foreign keys); every table carries `org_id`.
 * `pg_trgm` backs substring search over email and display name (trigram GIN index).
 * @see docs/api/endusers.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm with schema public');
  await knex.schema.withSchema('endusers').createTable('end_users', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('badge').notNullable().unique(); // eu_…, the organization-scoped identity
    t.text('email').notNullable(); // as given
    t.text('email_normalized').notNullable(); // NFC, lowercase
    t.text('display_name');
    t.text('status').notNullable(); // Pending | Active | Suspended
    t.timestamp('email_verified_at', { useTz: true });
    // Dormant: written by an import, read by nothing (docs/api/endusers.md "Dormant password hashes").
    t.text('password_hash');
    t.text('password_hash_algorithm');
    t.text('source').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'email_normalized']);
    t.index(['org_id', 'created_at', 'id']);
  });
  await knex.raw(`alter table endusers.end_users add column search_text text
    generated always as (email_normalized || ' ' || lower(coalesce(display_name, ''))) stored`);
  await knex.raw('create index end_users_search on endusers.end_users using gin (search_text public.gin_trgm_ops)');

  // No foreign key to end_users: its per-row check would lock each end user an import grants access
  // to; the end-users service deletes an end user's access rows with them.
  await knex.schema.withSchema('endusers').createTable('access', (t) => {
    t.uuid('end_user_id').notNullable();
    t.uuid('app_group_id').notNullable();
    t.uuid('org_id').notNullable();
    t.timestamp('granted_at', { useTz: true }).notNullable();
    t.primary(['end_user_id', 'app_group_id']);
    t.index(['org_id', 'app_group_id']);
  });

  await knex.schema.withSchema('endusers').createTable('invites', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('end_user_id').notNullable().references('id').inTable('endusers.end_users').onDelete('CASCADE');
    t.uuid('app_group_id');
    t.uuid('job_id').notNullable(); // the send-invites job that issued it
    t.text('token_hash').notNullable().unique(); // SHA-256 hex of the mailed token
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true }); // a newer invite replaced it
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['job_id', 'end_user_id']);
    t.index(['end_user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('endusers').dropTable('invites').dropTable('access').dropTable('end_users');
}
