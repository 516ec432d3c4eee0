import type { Knex } from 'knex';

/**
 * Claims: the record, written before any request leaves, that one dispatcher is sending an
 * endpoint a list of chain positions. One row per endpoint and claimed batch replaces the
 * `sending` row per delivery; the delivery rows are written once, with their outcome, in batches
 * after the requests (insert only). A claim whose dispatcher stopped (no heartbeat) becomes
 * `unknown` delivery rows for what has no outcome row, and is never sent again.
 *
 * Delivery ids derive from the claim: `msg_{claim id}_{index in the claim}`.
 * @see docs/api/webhooks.md "Delivery"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.withSchema('webhooks').createTable('claims', (t) => {
    t.text('id').primary(); // 16 base64url characters (12 random bytes)
    t.uuid('org_id').notNullable();
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhooks.endpoints');
    t.specificType('seqs', 'bigint[]').notNullable(); // the chain positions sent, in order
    t.specificType('event_ids', 'uuid[]').notNullable();
    t.specificType('event_types', 'text[]').notNullable();
    t.text('owner').notNullable(); // the dispatcher sending them (one per process)
    t.timestamp('claimed_at', { useTz: true, precision: 3 }).notNullable(); // each delivery's attemptedAt
    t.timestamp('heartbeat_at', { useTz: true, precision: 3 }).notNullable();
    t.index(['org_id', 'endpoint_id']);
    t.index(['heartbeat_at']);
  });
  // Deliveries written by the previous design and left `sending` by a process that has stopped:
  // the sweep that turned them `unknown` is gone with that design.
  await knex.raw(`UPDATE webhooks.deliveries SET outcome = 'unknown', completed_at = now(),
    detail = 'Aerie stopped before the outcome was known; the delivery is not sent again' WHERE outcome = 'sending'`);
  // Rows are now inserted with their outcome, never updated: no sweep index, full pages, and one
  // key instead of two — (endpoint_id, audit_event_id), at most one delivery per endpoint and event,
  // becomes the primary key; the id (unique by construction) needs no index of its own.
  await knex.raw('DROP INDEX IF EXISTS webhooks.deliveries_attempted_at_index');
  await knex.raw('ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_pkey, DROP CONSTRAINT deliveries_endpoint_id_audit_event_id_unique');
  await knex.raw('ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (endpoint_id, audit_event_id)');
  await knex.raw('ALTER TABLE webhooks.deliveries SET (fillfactor = 100)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhooks.deliveries SET (fillfactor = 80)');
  await knex.raw('ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_pkey');
  await knex.raw('ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id), ADD CONSTRAINT deliveries_endpoint_id_audit_event_id_unique UNIQUE (endpoint_id, audit_event_id)');
  await knex.raw('CREATE INDEX IF NOT EXISTS deliveries_attempted_at_index ON webhooks.deliveries (attempted_at)');
  await knex.schema.withSchema('webhooks').dropTable('claims');
}
