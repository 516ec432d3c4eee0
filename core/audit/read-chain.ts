import type { Knex } from 'knex';
import { toAuditTimestamp, type SealedAuditRecord } from './chain/index.ts';

/**
 * Reads an organization's sealed records in `seq` order, shaped exactly as they were hashed, so
 * `verifyRecords` can recompute every hash. `fromSeq`/`toSeq` bound the range (inclusive).
 * @see docs/audit.md
 */
export async function readChain(knex: Knex, orgId: string, range: { fromSeq?: number; toSeq?: number; limit?: number; eventTypes?: readonly string[] } = {}): Promise<SealedAuditRecord[]> {
  let q = knex('core.audit_events').where({ orgId }).orderBy('seq');
  if (range.eventTypes) q = q.whereIn('eventType', [...range.eventTypes]);
  if (range.fromSeq !== undefined) q = q.where('seq', '>=', range.fromSeq);
  if (range.toSeq !== undefined) q = q.where('seq', '<=', range.toSeq);
  if (range.limit !== undefined) q = q.limit(range.limit);
  const rows = await q;
  return rows.map(toSealedRecord);
}

/** One `core.audit_events` row as a {@link SealedAuditRecord} (`hashVersion: 2` only on version 2 rows). */
export function toSealedRecord(row: Record<string, any>): SealedAuditRecord {
  return {
    id: row.id, orgId: row.orgId, seq: Number(row.seq), eventType: row.eventType, occurredAt: toAuditTimestamp(new Date(row.occurredAt)),
    actor: { type: row.actorType, id: row.actorId }, ...(row.appGroupId ? { appGroupId: row.appGroupId } : {}),
    businessData: typeof row.businessData === 'string' ? JSON.parse(row.businessData) : row.businessData,
    sealedAt: toAuditTimestamp(new Date(row.sealedAt)), ...(Number(row.hashVersion) === 2 ? { hashVersion: 2 as const } : {}),
    payloadHash: row.payloadHash, prevHash: row.prevHash, chainHash: row.chainHash,
  };
}
