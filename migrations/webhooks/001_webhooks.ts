import type { Knex } from 'knex';

/**
 * Outbound webhook endpoints, their delivery attempts, and each organization's delivery cursor on
 * its sealed audit chain. Every table carries `org_id` and every query filters by it.
 * @see docs/api/webhooks.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').createTable('endpoints', (t) => {
    t.uuid('id').primary();
    t.uuid('org_id').notNullable();
    t.text('url').notNullable();
    t.jsonb('events').notNullable();
    t.text('description');
    t.text('secret_ciphertext').notNullable(); // envelope-encrypted whsec_… (it is used to sign again)
    t.boolean('is_active').notNullable().defaultTo(true);
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.timestamp('disabled_at', { useTz: true });
    t.bigInteger('from_seq').notNullable(); // events after this chain position are delivered
    t.text('created_by_type').notNullable();
    t.text('created_by_id').notNullable();
    t.boolean('created_by_owner').notNullable(); // payment.* goes only to endpoints the Owner created
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX endpoints_org_live ON webhooks.endpoints (org_id, created_at) WHERE deleted_at IS NULL');

  await knex.schema.withSchema('webhooks').createTable('cursors', (t) => {
    t.uuid('org_id').primary();
    t.bigInteger('seq').notNullable(); // the last chain position dispatched
    t.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await knex.schema.withSchema('webhooks').createTable('deliveries', (t) => {
    t.text('id').primary(); // msg_…, the envelope id and webhook-id header
    t.uuid('org_id').notNullable();
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhooks.endpoints');
    t.uuid('audit_event_id').notNullable();
    t.bigInteger('event_seq').notNullable();
    t.text('event_type').notNullable();
    t.text('outcome').notNullable(); // sending | succeeded | failed | unknown
    t.integer('http_status');
    t.integer('latency_ms');
    t.text('failure_class');
    t.text('detail');
    t.timestamp('attempted_at', { useTz: true, precision: 3 }).notNullable();
    t.timestamp('completed_at', { useTz: true, precision: 3 });
    t.unique(['endpoint_id', 'audit_event_id']); // at most once, whatever happens
    t.index(['org_id', 'endpoint_id', 'attempted_at']);
    t.index(['attempted_at']); // the sweep of interrupted deliveries
  });
  // Outcome columns are in no index, so recording an outcome is a HOT update; the free space per
  // page keeps the new row version on the same page.
  await knex.raw('ALTER TABLE webhooks.deliveries SET (fillfactor = 80)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').dropTable('deliveries').dropTable('cursors').dropTable('endpoints');
}
