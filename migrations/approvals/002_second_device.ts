import type { Knex } from 'knex';

/**
 * Rule 7, second-device confirmation: the per-organization setting (no row means on, the default)
 * and the confirmation requests a stamp waits on in the required phase. A request keeps the
 * computer's seal proof until the second device confirms; its one-time link token is stored as
 * SHA-256 only.
 * @see docs/api/approvals.md "Second-device confirmation"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('approvals').createTable('settings', (t) => {
    t.uuid('org_id').primary();
    t.boolean('second_device_confirmation').notNullable();
    t.uuid('updated_by').notNullable(); // account id
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.withSchema('approvals').createTable('second_device_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.uuid('instance_id').notNullable().references('id').inTable('approvals.instances');
    t.uuid('step_id').notNullable().references('id').inTable('approvals.steps');
    t.uuid('approver_connected_id').notNullable();
    t.uuid('account_id').notNullable();
    t.text('decision').notNullable(); // approve | reject
    t.text('reason');
    t.text('credential_id').notNullable(); // the passkey that stamped on the computer
    t.jsonb('proof').notNullable(); // its SealProof, recorded as `sp` once confirmed
    t.text('token_hash').notNullable().unique();
    t.text('channel'); // email, or null when nothing could be sent
    t.text('status').notNullable(); // pending | completing | done | denied | refused | expired
    t.text('refused_code');
    t.text('confirm_credential_id');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
    t.index(['org_id', 'instance_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('approvals').dropTable('second_device_requests').dropTable('settings');
}
