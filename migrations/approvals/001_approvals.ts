import type { Knex } from 'knex';

/**
 * Approval forms (work items), their approval lines, submitted instances with their steps, and the
 * per-organization, per-year document number counters. Membership ids point at the orgs plugin's
 * rows and role ids at rbac's (no cross-schema foreign keys). Every table carries `org_id`.
 * @see docs/api/approvals.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('approvals').createTable('work_items', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('doc_type').notNullable(); // permission | document | report
    t.text('title').notNullable();
    t.text('description');
    t.uuid('linked_role_id'); // permission forms: the role approval assigns
    t.uuid('created_by').notNullable(); // account id
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['org_id', 'created_at']);
  });

  await knex.schema.withSchema('approvals').createTable('line_positions', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('work_item_id').notNullable().references('id').inTable('approvals.work_items');
    t.integer('position').notNullable();
    t.text('label_ko').notNullable();
    t.text('label_en').notNullable();
    t.text('label_ja').notNullable();
    t.text('resolve_type').notNullable(); // drafter | role | member
    t.uuid('resolve_role_id');
    t.uuid('resolve_member_connected_id');
    t.unique(['work_item_id', 'position']);
    t.index(['org_id', 'work_item_id']);
  });

  await knex.schema.withSchema('approvals').createTable('instances', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('work_item_id').notNullable().references('id').inTable('approvals.work_items');
    t.text('doc_type').notNullable();
    t.text('document_number').notNullable();
    t.text('title').notNullable();
    t.text('body').notNullable();
    t.jsonb('attachments').notNullable(); // [{Name, Sha256, Size}] in submitted order
    t.uuid('linked_role_id');
    t.uuid('requester_connected_id').notNullable();
    t.text('requester_kind').notNullable(); // human | agent
    t.text('status').notNullable(); // pending | approved | rejected | unroutable | sent
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('decided_at', { useTz: true });
    t.unique(['org_id', 'document_number']);
    t.index(['org_id', 'requester_connected_id']);
  });

  await knex.schema.withSchema('approvals').createTable('steps', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('instance_id').notNullable().references('id').inTable('approvals.instances');
    t.integer('step_order').notNullable();
    t.text('label_ko').notNullable();
    t.text('label_en').notNullable();
    t.text('label_ja').notNullable();
    t.text('kind').notNullable(); // approver | receiver
    t.uuid('approver_connected_id').notNullable();
    t.text('status').notNullable(); // waiting | pending | approved | rejected | received | skipped
    t.text('reason');
    t.text('credential_id');
    t.timestamp('stamped_at', { useTz: true });
    t.unique(['instance_id', 'step_order']);
    t.index(['org_id', 'approver_connected_id']);
  });

  await knex.schema.withSchema('approvals').createTable('number_counters', (t) => {
    t.uuid('org_id').notNullable();
    t.integer('year').notNullable();
    t.integer('last_number').notNullable();
    t.primary(['org_id', 'year']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('approvals').dropTable('number_counters').dropTable('steps').dropTable('instances')
    .dropTable('line_positions').dropTable('work_items');
}
