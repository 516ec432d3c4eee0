import type { Knex } from 'knex';

/**
 * Roles, their permission templates, role assignments (each with the snapshot of scopes it grants)
 * and one access row per member (the union of their snapshots and their membership type), read by
 * the permission check with one primary-key look-up. Organization and membership ids point at the
 * orgs plugin's rows (no cross-schema foreign keys).
 * @see spec 01 "Role and permission", "Roles"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('rbac').createTable('roles', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('role_key').notNullable();
    t.text('name').notNullable();
    t.text('description');
    t.boolean('requires_approval').notNullable().defaultTo(false);
    t.boolean('is_preset').notNullable().defaultTo(false);
    t.boolean('is_active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['org_id', 'role_key']);
  });
  await knex.schema.withSchema('rbac').createTable('permission_templates', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('role_id').notNullable().references('id').inTable('rbac.roles').onDelete('CASCADE');
    t.text('scope').notNullable(); // canonical template text, may hold {variable} placeholders
    t.text('base_scope').notNullable(); // the catalog base it resolved to
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['role_id', 'scope']);
    t.index(['org_id', 'role_id']);
  });
  await knex.schema.withSchema('rbac').createTable('role_assignments', (t) => {
    t.uuid('id').primary(); // the spec's connectedIdRoleId
    t.uuid('org_id').notNullable();
    t.uuid('membership_id').notNullable(); // the spec's connectedIdId
    t.uuid('role_id').notNullable().references('id').inTable('rbac.roles'); // deleting a held role is refused
    t.jsonb('variables').notNullable();
    t.text('variables_key').notNullable();
    t.jsonb('grants').notNullable(); // the snapshot: compiled scopes at assignment time
    t.uuid('assigned_by');
    t.timestamp('assigned_at', { useTz: true }).notNullable();
    t.timestamp('snapshotted_at', { useTz: true }).notNullable();
    t.unique(['membership_id', 'role_id', 'variables_key']);
    t.index(['org_id', 'membership_id']);
    t.index(['role_id']);
  });
  await knex.schema.withSchema('rbac').createTable('member_access', (t) => {
    t.uuid('membership_id').primary();
    t.uuid('org_id').notNullable();
    t.text('membership_type').notNullable();
    t.jsonb('grants').notNullable(); // union of the member's snapshots, without the default grant
    t.integer('version').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('rbac').dropTable('member_access').dropTable('role_assignments').dropTable('permission_templates').dropTable('roles');
}
