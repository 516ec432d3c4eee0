import { beforeAll, describe, expect, it } from 'vitest';
import type { SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH } from '../../../../core/audit/chain/chain-hash.ts';
import { signCheckpoint, verifyAgainstCheckpoint, verifyCheckpoint } from '../../../../core/audit/chain/checkpoint.ts';
import { verifyRecords, type ChainBreakReason } from '../../../../core/audit/chain/verify-chain.ts';
import { ORG_A, ORG_B, makeRecords, resealFrom, sealRecords } from './fixtures.ts';
import { makeAuditKey, type TestAuditKey } from './keys.ts';

const SEALED_AT = '2026-10-16T09:00:00.000Z';
const chain = (): SealedAuditRecord[] => sealRecords(makeRecords(ORG_A, 6), SEALED_AT);
const at = (records: SealedAuditRecord[], seq: number) => records.findIndex((r) => r.seq === seq);
const edit = (records: SealedAuditRecord[], seq: number, patch: Partial<SealedAuditRecord>) =>
  records.map((r) => (r.seq === seq ? { ...r, ...patch } : r));

describe('verifyRecords', () => {
  it('accepts an untouched chain and reports its head', () => {
    const records = chain();
    expect(verifyRecords(records)).toEqual({ ok: true, checked: 6, head: { orgId: ORG_A, seq: 6, chainHash: records[5].chainHash } });
    expect(verifyRecords(records, { startPrevHash: GENESIS_HASH }).ok).toBe(true);
  });

  it('accepts a run that starts mid-chain, anchored or not', () => {
    const records = chain();
    expect(verifyRecords(records.slice(3)).ok).toBe(true);
    expect(verifyRecords(records.slice(3), { startPrevHash: records[2].chainHash }).ok).toBe(true);
    expect(verifyRecords([]).ok).toBe(true);
  });

  type Row = [string, (records: SealedAuditRecord[]) => SealedAuditRecord[], number, ChainBreakReason];
  it.each<Row>([
    ['businessData changed', (r) => edit(r, 3, { businessData: { ...r[2].businessData, ip: '10.9.9.9' } }), 3, 'payload_hash_mismatch'],
    ['_humanSeal added', (r) => edit(r, 3, { businessData: { ...r[2].businessData, _humanSeal: { credentialId: 'c', userId: 'u' } } }), 3, 'payload_hash_mismatch'],
    ['occurredAt moved by 1 ms', (r) => edit(r, 4, { occurredAt: '2026-10-16T08:00:04.005Z' }), 4, 'payload_hash_mismatch'],
    ['sealedAt changed', (r) => edit(r, 3, { sealedAt: '2027-01-01T00:00:00.000Z' }), 3, 'payload_hash_mismatch'],
    ['actor changed', (r) => edit(r, 2, { actor: { type: 'system', id: 'cron' } }), 2, 'payload_hash_mismatch'],
    ['appGroupId removed', (r) => edit(r, 2, { appGroupId: undefined }), 2, 'payload_hash_mismatch'],
    ['stored payloadHash changed', (r) => edit(r, 5, { payloadHash: 'f'.repeat(64) }), 5, 'payload_hash_mismatch'],
    ['prevHash changed', (r) => edit(r, 3, { prevHash: 'a'.repeat(64) }), 3, 'prev_hash_mismatch'],
    ['first record does not start from genesis', (r) => edit(r, 1, { prevHash: 'a'.repeat(64) }), 1, 'prev_hash_mismatch'],
    ['stored chainHash changed', (r) => edit(r, 3, { chainHash: 'b'.repeat(64) }), 3, 'chain_hash_mismatch'],
    ['record 3 deleted', (r) => r.filter((x) => x.seq !== 3), 4, 'seq_gap'],
    ['records 3 and 4 swapped', (r) => [r[0], r[1], r[3], r[2], r[4], r[5]], 4, 'seq_gap'],
    ['record 2 duplicated', (r) => [r[0], r[1], r[1], ...r.slice(2)], 2, 'seq_gap'],
    ['a record of another organization inserted', (r) => [...r.slice(0, 3), ...sealRecords(makeRecords(ORG_B, 1, 4), SEALED_AT, 'c'.repeat(64)), ...r.slice(3)], 4, 'org_mismatch'],
  ])('%s → first broken record is found', (_, tamper, seq, reason) => {
    const tampered = tamper(chain());
    const result = verifyRecords(tampered);
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({ seq, reason, id: tampered[result.checked].id });
  });

  it('a run not anchored where the caller expects it fails at its first record', () => {
    const records = chain();
    expect(verifyRecords(records.slice(3), { startPrevHash: records[1].chainHash }).firstBroken).toMatchObject({ seq: 4, reason: 'prev_hash_mismatch' });
    expect(verifyRecords(records.slice(3), { startPrevHash: GENESIS_HASH }).firstBroken).toMatchObject({ seq: 4, reason: 'seq_gap' });
  });
});

describe('checkpoints catch what hash links cannot', () => {
  let key: TestAuditKey;
  beforeAll(async () => {
    key = await makeAuditKey();
  });

  const checkpointOf = async (records: SealedAuditRecord[], seq: number) => {
    const r = records[at(records, seq)];
    return verifyCheckpoint(await signCheckpoint({ orgId: r.orgId, seq, chainHash: r.chainHash, sealedAt: r.sealedAt }, key.privateKey, key.kid), key.jwks);
  };

  it('a DBA rewrites record 3 and recomputes every later hash: the links pass, the checkpoint fails', async () => {
    const original = chain();
    const checkpoint = await checkpointOf(original, 6);
    const forged = resealFrom(edit(original, 3, { businessData: { ...original[2].businessData, ip: '6.6.6.6' } }));
    expect(verifyRecords(forged).ok).toBe(true);
    expect(verifyAgainstCheckpoint(original, checkpoint)).toEqual({ ok: true, seq: 6, id: original[5].id });
    expect(verifyAgainstCheckpoint(forged, checkpoint)).toEqual({ ok: false, seq: 6, id: forged[5].id, reason: 'chain_hash_mismatch' });
  });

  it('the same rewrite after the checkpointed record is not caught by that checkpoint (tail exposure)', async () => {
    const original = chain();
    const checkpoint = await checkpointOf(original, 4);
    const forged = [...original.slice(0, 4), ...resealFrom(edit(original.slice(4), 5, { eventType: 'auth.login.failed' }))];
    expect(verifyRecords(forged).ok).toBe(true);
    expect(verifyAgainstCheckpoint(forged, checkpoint).ok).toBe(true);
  });

  it('dropping the tail past a checkpoint leaves it uncovered; sealedAt at the checkpoint is bound', async () => {
    const original = chain();
    const checkpoint = await checkpointOf(original, 6);
    expect(verifyAgainstCheckpoint(original.slice(0, 5), checkpoint)).toEqual({ ok: false, seq: 6, reason: 'not_covered' });
    expect(verifyAgainstCheckpoint(edit(original, 6, { sealedAt: '2026-10-16T09:00:00.001Z' }), checkpoint)).toMatchObject({ ok: false, reason: 'sealed_at_mismatch' });
  });
});
