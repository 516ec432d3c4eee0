import type { Knex } from 'knex';
import { toAuditTimestamp, type SealedAuditRecord } from './chain/index.ts';

/**
 * Reads an organization's sealed records in `seq` order, shaped exactly as they were hashed, so
 * `verifyRecords` can recompute every hash. `fromSeq`/`toSeq` bound the range (inclusive).
 * @see docs/audit.md
 */
export async function readChain(knex: Knex, orgId: string, range: { fromSeq?: number; toSeq?: number; limit?: number; eventTypes?: readonly string[] } = {}): Promise<SealedAuditRecord[]> {
  let q = knex('core.audit_events').select(sealedColumns(knex)).where({ orgId }).orderBy('seq');
  if (range.eventTypes) q = q.whereIn('eventType', [...range.eventTypes]);
  if (range.fromSeq !== undefined) q = q.where('seq', '>=', range.fromSeq);
  if (range.toSeq !== undefined) q = q.where('seq', '<=', range.toSeq);
  if (range.limit !== undefined) q = q.limit(range.limit);
  const rows = await q;
  return rows.map(toSealedRecord);
}

/**
 * The columns {@link toSealedRecord} reads: the two timestamps as epoch milliseconds (bigint text),
 * which the database renders far cheaper than the driver parses timestamp text into a `Date`
 * (the batch archive and the verifiers read every sealed record).
 */
export function sealedColumns(knex: Knex): Array<string | Knex.Raw> {
  return [
    'id', 'orgId', 'seq', 'eventType', 'actorType', 'actorId', 'appGroupId', 'businessData', 'payloadHash', 'prevHash', 'chainHash', 'hashVersion',
    knex.raw('floor(extract(epoch from occurred_at) * 1000)::bigint as occurred_ms'), knex.raw('floor(extract(epoch from sealed_at) * 1000)::bigint as sealed_ms'),
  ];
}

/**
 * One `core.audit_events` row selected with {@link sealedColumns} as a {@link SealedAuditRecord}
 * (`hashVersion: 2` only on version 2 rows).
 */
export function toSealedRecord(row: Record<string, any>): SealedAuditRecord {
  return {
    id: row.id, orgId: row.orgId, seq: Number(row.seq), eventType: row.eventType, occurredAt: toAuditTimestamp(Number(row.occurredMs)),
    actor: { type: row.actorType, id: row.actorId }, ...(row.appGroupId ? { appGroupId: row.appGroupId } : {}),
    businessData: typeof row.businessData === 'string' ? JSON.parse(row.businessData) : row.businessData,
    sealedAt: toAuditTimestamp(Number(row.sealedMs)), ...(Number(row.hashVersion) === 2 ? { hashVersion: 2 as const } : {}),
    payloadHash: row.payloadHash, prevHash: row.prevHash, chainHash: row.chainHash,
  };
}
