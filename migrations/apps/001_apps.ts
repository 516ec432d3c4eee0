import type { Knex } from 'knex';

/**
 * App groups and their applications (OIDC clients). Organization ids point at the orgs plugin's rows
 * (no cross-schema foreign keys); every table carries `org_id` and every query filters by it.
 * @see docs/api/apps.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').createTable('app_groups', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('public_key').notNullable().unique(); // appgroup_…
    t.text('name').notNullable();
    t.text('description');
    t.text('icon_url');
    t.text('brand_color');
    t.boolean('monetization_enabled').notNullable().defaultTo(false);
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id', 'created_at']);
  });

  await knex.schema.withSchema('apps').createTable('applications', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('app_group_id').notNullable().references('id').inTable('apps.app_groups').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.text('environment').notNullable();
    t.text('status').notNullable();
    t.text('client_key').notNullable().unique(); // client_…
    t.jsonb('redirect_uris').notNullable();
    t.jsonb('post_logout_redirect_uris').notNullable();
    t.jsonb('grant_types').notNullable();
    t.jsonb('allowed_scopes').notNullable();
    t.boolean('pkce_required').notNullable();
    t.text('token_endpoint_auth_method').notNullable();
    t.text('secret_hash'); // SHA-256 hex of the client secret (confidential clients only)
    t.timestamp('secret_rotated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id', 'app_group_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('apps').dropTable('applications').dropTable('app_groups');
}
