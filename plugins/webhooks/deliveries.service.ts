import type { Database } from '../../core/index.ts';

/** One delivery attempt as listed. @see docs/api/webhooks.md "Deliveries" */
export interface DeliveryDto {
  id: string;
  auditEventId: string;
  eventSeq: number;
  eventType: string;
  /** `sending` (recorded, outcome not yet known), `succeeded` (2xx), `failed`, `skipped` (breaker tripped first), `unknown` (Aerie stopped mid-way). */
  outcome: string;
  httpStatus: number | null;
  latencyMs: number | null;
  /** `http_status`, `redirect`, `timeout`, `connection`, `dns`, `tls`, `blocked`, `invalid_url`, `endpoint_disabled`. */
  failureClass: string | null;
  detail: string | null;
  attemptedAt: string;
  completedAt: string | null;
}

/**
 * An endpoint's delivery attempts, newest first (by `attemptedAt`, then `id`), `limit` at a time;
 * `nextCursor` (opaque) continues. Written outcomes (`succeeded`, `failed`, `skipped`, `unknown`:
 * batch rows, and the per-delivery rows of interrupted claims and of earlier versions) and the
 * deliveries of open claims that have none yet (`sending`: recorded, outcome not yet known) are
 * listed together, so an attempt is listed from the moment it is recorded; its `attemptedAt` (the
 * claim's time) and `id` do not change when its outcome is written, so pages stay stable.
 * The caller has checked that the endpoint is the organization's. An unreadable `after` is ignored.
 */
export async function listDeliveries(db: Database, orgId: string, endpointId: string, page: { limit: number; after?: string }): Promise<{ deliveries: DeliveryDto[]; nextCursor: string | null }> {
  const after = page.after ? decodeCursor(page.after) : undefined;
  const rows: Array<Record<string, any>> = (await db.knex.raw(
    `WITH page_times AS (
       -- Written batches are read from the newest claim times down, enough to fill the page: each
       -- time holds at least one delivery, and the cursor's own may hold none after the cursor.
       SELECT DISTINCT attempted_at FROM webhooks.delivery_batches
       WHERE org_id = :orgId AND endpoint_id = :endpointId ${after ? 'AND attempted_at <= :at' : ''}
       ORDER BY attempted_at DESC LIMIT :limit + 1
     )
     SELECT * FROM (
       SELECT id, audit_event_id, event_seq, event_type, outcome, http_status, latency_ms, failure_class, detail, attempted_at, completed_at
       FROM webhooks.delivery_rows WHERE org_id = :orgId AND endpoint_id = :endpointId
       UNION ALL
       SELECT 'msg_' || b.claim_id || '_' || u.i, u.event_id, u.seq, u.event_type, u.outcome, u.http_status, u.latency_ms, u.failure_class, u.detail, b.attempted_at, b.completed_at
       FROM webhooks.delivery_batches b
       CROSS JOIN LATERAL unnest(b.indexes, b.event_ids, b.seqs, b.event_types, b.outcomes, b.http_status, b.latency_ms, b.failure_class, b.detail)
         AS u(i, event_id, seq, event_type, outcome, http_status, latency_ms, failure_class, detail)
       WHERE b.org_id = :orgId AND b.endpoint_id = :endpointId AND b.attempted_at >= (SELECT min(attempted_at) FROM page_times)
       UNION ALL
       SELECT 'msg_' || c.id || '_' || (u.n - 1), u.event_id, u.seq, u.event_type, 'sending', NULL, NULL, NULL, NULL, c.claimed_at, NULL
       FROM webhooks.claims c CROSS JOIN LATERAL unnest(c.seqs, c.event_ids, c.event_types) WITH ORDINALITY AS u(seq, event_id, event_type, n)
       WHERE c.org_id = :orgId AND c.endpoint_id = :endpointId
         AND NOT EXISTS (SELECT 1 FROM webhooks.delivery_batches b WHERE b.claim_id = c.id AND u.n - 1 = ANY(b.indexes))
         AND NOT EXISTS (SELECT 1 FROM webhooks.delivery_rows d WHERE d.endpoint_id = c.endpoint_id AND d.audit_event_id = u.event_id)
     ) a
     ${after ? 'WHERE (attempted_at, id) < (:at, :id)' : ''}
     ORDER BY attempted_at DESC, id DESC LIMIT :limit`,
    { orgId, endpointId, limit: page.limit + 1, ...(after ? { at: after.at, id: after.id } : {}) },
  )).rows;
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit).map((r): DeliveryDto => ({
    id: r.id, auditEventId: r.audit_event_id, eventSeq: Number(r.event_seq), eventType: r.event_type, outcome: r.outcome,
    httpStatus: r.http_status, latencyMs: r.latency_ms, failureClass: r.failure_class, detail: r.detail,
    attemptedAt: new Date(r.attempted_at).toISOString(), completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
  }));
  const last = items.at(-1);
  return { deliveries: items, nextCursor: more && last ? Buffer.from(`${last.attemptedAt}|${last.id}`).toString('base64url') : null };
}

function decodeCursor(cursor: string): { at: Date; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at ?? '');
  return id && !Number.isNaN(date.getTime()) ? { at: date, id } : undefined;
}
