import type { Knex } from 'knex';

/**
 * Permission forms that grant one scope (`linkedPermissionScope`) rather than a chosen role. Such a
 * form is backed by a role of its own carrying exactly that scope, so the grant goes through rbac's
 * assignment path like any other; `grant_role_id` is the role assigned on final approval, for both
 * kinds of permission form (the chosen `linked_role_id`, or the backing role). Instances copy both
 * at submission.
 * @see docs/api/approvals.md "Forms"
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of ['work_items', 'instances']) {
    await knex.schema.withSchema('approvals').alterTable(table, (t) => {
      t.text('linked_permission_scope');
      t.uuid('grant_role_id');
    });
    await knex(`approvals.${table}`).whereNotNull('linked_role_id').update({ grant_role_id: knex.ref('linked_role_id') });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['work_items', 'instances']) {
    await knex.schema.withSchema('approvals').alterTable(table, (t) => {
      t.dropColumn('linked_permission_scope');
      t.dropColumn('grant_role_id');
    });
  }
}
