import type { Knex } from 'knex';

/**
 * Delivery outcomes written in batches: one `webhooks.delivery_batches` row per claim and flush
 * holds the outcomes of that claim's deliveries that finished since the last flush, as parallel
 * arrays (positions in the claim, events, outcomes, statuses, latencies, failure classes, details).
 * One row per delivery cost the PostgreSQL server ~9 µs of CPU per delivery (heap tuple, two index
 * entries, JSON parse); a batch row costs ~1.5 µs per delivery (measured in isolation, 100,000
 * deliveries). The per-row table stays, renamed `webhooks.delivery_rows`, with the rows written
 * before this migration and the `unknown` rows of interrupted claims (one per delivery, so a late
 * outcome can replace its own). `webhooks.deliveries` becomes a view of both, one row per delivery
 * with the columns it had.
 * @see docs/api/webhooks.md "Delivery"
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhooks.deliveries RENAME TO delivery_rows');
  await knex.schema.withSchema('webhooks').createTable('delivery_batches', (t) => {
    t.text('claim_id').notNullable(); // delivery ids are msg_{claim_id}_{index}
    t.uuid('org_id').notNullable();
    t.uuid('endpoint_id').notNullable().references('id').inTable('webhooks.endpoints');
    t.timestamp('attempted_at', { useTz: true, precision: 3 }).notNullable(); // the claim's time, before any request left
    t.timestamp('completed_at', { useTz: true, precision: 3 }).notNullable(); // when the batch was written
    t.specificType('indexes', 'int[]').notNullable(); // positions in the claim
    t.specificType('event_ids', 'uuid[]').notNullable();
    t.specificType('seqs', 'bigint[]').notNullable();
    t.specificType('event_types', 'text[]').notNullable();
    t.specificType('outcomes', 'text[]').notNullable(); // succeeded | failed | skipped | unknown
    t.specificType('http_status', 'int[]').notNullable(); // NULL elements: no answer
    t.specificType('latency_ms', 'int[]').notNullable();
    t.specificType('failure_class', 'text[]').notNullable();
    t.specificType('detail', 'text[]').notNullable();
    t.index(['org_id', 'endpoint_id', 'attempted_at']);
    t.index(['claim_id']);
  });
  await knex.raw(`CREATE VIEW webhooks.deliveries AS
    SELECT id, org_id, endpoint_id, audit_event_id, event_seq, event_type, outcome, http_status, latency_ms, failure_class, detail, attempted_at, completed_at
    FROM webhooks.delivery_rows
    UNION ALL
    SELECT 'msg_' || b.claim_id || '_' || u.i, b.org_id, b.endpoint_id, u.event_id, u.seq, u.event_type, u.outcome, u.http_status, u.latency_ms,
      u.failure_class, u.detail, b.attempted_at, b.completed_at
    FROM webhooks.delivery_batches b
    CROSS JOIN LATERAL unnest(b.indexes, b.event_ids, b.seqs, b.event_types, b.outcomes, b.http_status, b.latency_ms, b.failure_class, b.detail)
      AS u(i, event_id, seq, event_type, outcome, http_status, latency_ms, failure_class, detail)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP VIEW webhooks.deliveries');
  await knex.raw(`INSERT INTO webhooks.delivery_rows (id, org_id, endpoint_id, audit_event_id, event_seq, event_type, outcome, http_status, latency_ms, failure_class, detail, attempted_at, completed_at)
    SELECT 'msg_' || b.claim_id || '_' || u.i, b.org_id, b.endpoint_id, u.event_id, u.seq, u.event_type, u.outcome, u.http_status, u.latency_ms, u.failure_class, u.detail, b.attempted_at, b.completed_at
    FROM webhooks.delivery_batches b
    CROSS JOIN LATERAL unnest(b.indexes, b.event_ids, b.seqs, b.event_types, b.outcomes, b.http_status, b.latency_ms, b.failure_class, b.detail)
      AS u(i, event_id, seq, event_type, outcome, http_status, latency_ms, failure_class, detail)
    ON CONFLICT (endpoint_id, audit_event_id) DO NOTHING`);
  await knex.schema.withSchema('webhooks').dropTable('delivery_batches');
  await knex.raw('ALTER TABLE webhooks.delivery_rows RENAME TO deliveries');
}
