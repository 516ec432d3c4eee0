/** Shared builders for the audit chain tests (not a test file itself). */
import type { AuditRecordInput, SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, sealBatch } from '../../../../core/audit/chain/chain-hash.ts';

export const ORG_A = '5f3c8a2e-1b4d-4e6f-8a9b-0c1d2e3f4a5b';
export const ORG_B = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';

/**
 * The hand-checkable event of the hash vectors (chain-hash.test.ts for version 1, which adds `seq`
 * and `sealedAt`; chain-hash-v2.test.ts for version 2): keys out of order, a `_humanSeal`,
 * non-ASCII text and 1e-7.
 */
export const VECTOR_EVENT = {
  orgId: ORG_A,
  id: '0b7e2c1a-7d4e-4d7c-9a51-3f0c1e2d4a5b',
  eventType: 'seal.lifecycle.registered',
  occurredAt: '2026-10-16T08:30:00.123Z',
  actor: { type: 'account' as const, id: 'acc_1' },
  appGroupId: 'appgroup_7',
  businessData: { ratio: 0.0000001, note: 'café €', keyId: 'k1', _humanSeal: { userId: 'u-1', credentialId: 'cred-1' } },
};

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
