import type { Knex } from 'knex';

/**
 * The rbac plugin's published read contract for plugins that filter roles in SQL (SCIM Groups):
 * `rbac.role_directory`, one row per role — `role_id`, `org_id`, `role_key`, `name`, `description`,
 * `is_preset`, `is_active`, `created_at`, `updated_at`; and `rbac.role_holders`, one row per role
 * assignment — `assignment_id`, `org_id`, `role_id`, `membership_id`, `assigned_at`. Readers always
 * filter by `org_id`; writes go through `rbacRefs.roles` and `rbacRefs.assignments`.
 * @see docs/plugins.md "Reading roles in SQL"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE VIEW rbac.role_directory AS
    SELECT r.id AS role_id, r.org_id, r.role_key, r.name, r.description, r.is_preset, r.is_active, r.created_at, r.updated_at
    FROM rbac.roles r`);
  await knex.raw(`
    CREATE VIEW rbac.role_holders AS
    SELECT a.id AS assignment_id, a.org_id, a.role_id, a.membership_id, a.assigned_at
    FROM rbac.role_assignments a`);
  // A group's members (`where role_id = ?`) and "is this member in the group" go through this index.
  await knex.raw('CREATE INDEX role_assignments_role_membership ON rbac.role_assignments (role_id, membership_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS rbac.role_assignments_role_membership');
  await knex.raw('DROP VIEW rbac.role_holders');
  await knex.raw('DROP VIEW rbac.role_directory');
}
