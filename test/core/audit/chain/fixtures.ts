/** Shared builders for the audit chain tests (not a test file itself). */
import type { AuditRecordInput, SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, sealBatch } from '../../../../core/audit/chain/chain-hash.ts';

export const ORG_A = '5f3c8a2e-1b4d-4e6f-8a9b-0c1d2e3f4a5b';
export const ORG_B = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

/** `count` records of one organization starting at `startSeq`, with varied optional fields. */
export function makeRecords(orgId: string, count: number, startSeq = 1): AuditRecordInput[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = startSeq + i;
    const record: AuditRecordInput = {
      id: `${orgId.slice(0, 8)}-rec-${String(seq).padStart(6, '0')}`,
      orgId,
      seq,
      eventType: seq % 3 === 0 ? 'org.member.invited' : 'auth.login.succeeded',
      occurredAt: new Date(Date.UTC(2026, 9, 16, 8, 0, 0) + seq * 1_001).toISOString(),
      actor: { type: seq % 4 === 0 ? 'apiKey' : 'account', id: `actor-${seq % 5}` },
      businessData: { ip: `10.0.0.${seq % 250}`, attempt: seq, note: 'naïve ☃ "quoted"' },
    };
    if (seq % 2 === 0) record.appGroupId = 'appgroup_7';
    if (seq % 5 === 0) record.businessData._humanSeal = { credentialId: `cred-${seq}`, userId: 'user-1' };
    return record;
  });
}

/** Seal records in one batch (or continuing from `prevHash`) and attach the hashes and `sealedAt`. */
export function sealRecords(records: AuditRecordInput[], sealedAt = '2026-10-16T09:00:00.000Z', prevHash = GENESIS_HASH): SealedAuditRecord[] {
  const { sealed } = sealBatch(prevHash, records, sealedAt);
  return records.map((record, i) => ({ ...record, sealedAt, ...sealed[i] }));
}

/**
 * Recompute every hash of a run from its first record's prevHash, keeping each record's own
 * sealedAt: what a DBA covering tracks after editing a row would do.
 */
export function resealFrom(records: SealedAuditRecord[]): SealedAuditRecord[] {
  let prev = records[0].prevHash;
  return records.map((record) => {
    const [hashes] = sealBatch(prev, [record], record.sealedAt).sealed;
    prev = hashes.chainHash;
    return { ...record, ...hashes };
  });
}
