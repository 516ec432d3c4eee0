import type { Database } from '../../core/index.ts';

/** One delivery attempt as listed. @see docs/api/webhooks.md "Deliveries" */
export interface DeliveryDto {
  id: string;
  auditEventId: string;
  eventSeq: number;
  eventType: string;
  /** `sending` (on its way), `succeeded` (2xx), `failed`, `skipped` (breaker tripped first), `unknown` (Aerie stopped mid-way). */
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
 * An endpoint's delivery attempts, newest first, `limit` at a time; `nextCursor` (opaque) continues.
 * The caller has checked that the endpoint is the organization's.
 */
export async function listDeliveries(db: Database, orgId: string, endpointId: string, page: { limit: number; after?: string }): Promise<{ deliveries: DeliveryDto[]; nextCursor: string | null }> {
  let q = db.knex('webhooks.deliveries').where({ orgId, endpointId });
  const after = page.after ? decodeCursor(page.after) : undefined;
  if (after) q = q.where((w) => w.where('attemptedAt', '<', after.at).orWhere((x) => x.where('attemptedAt', after.at).andWhere('id', '<', after.id)));
  const rows = await q.orderBy([{ column: 'attemptedAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit + 1).select('*');
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit).map((r): DeliveryDto => ({
    id: r.id, auditEventId: r.auditEventId, eventSeq: Number(r.eventSeq), eventType: r.eventType, outcome: r.outcome,
    httpStatus: r.httpStatus, latencyMs: r.latencyMs, failureClass: r.failureClass, detail: r.detail,
    attemptedAt: new Date(r.attemptedAt).toISOString(), completedAt: r.completedAt ? new Date(r.completedAt).toISOString() : null,
  }));
  const last = items.at(-1);
  return { deliveries: items, nextCursor: more && last ? Buffer.from(`${last.attemptedAt}|${last.id}`).toString('base64url') : null };
}

function decodeCursor(cursor: string): { at: Date; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at ?? '');
  return id && !Number.isNaN(date.getTime()) ? { at: date, id } : undefined;
}
