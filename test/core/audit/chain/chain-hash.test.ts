import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditRecordInput, HashableAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { toAuditTimestamp } from '../../../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, canonicalPayload, chainHash, payloadHash, payloadOf, sealBatch } from '../../../../core/audit/chain/chain-hash.ts';
import { ORG_A, ORG_B, VECTOR_EVENT, makeRecords } from './fixtures.ts';

// A record whose canonical JSON a reader can check by eye: keys sorted by UTF-16 code units
// ("_" < lowercase letters, "sealedAt" < "seq"), no whitespace, non-ASCII kept as UTF-8,
// 1e-7 in ECMAScript form, sealedAt included, no hashes.
const SEALED_AT = '2026-10-16T08:30:05.000Z';
const VECTOR: HashableAuditRecord = { seq: 1, ...VECTOR_EVENT, sealedAt: SEALED_AT };
const VECTOR_JCS =
  '{"actor":{"id":"acc_1","type":"account"},"appGroupId":"appgroup_7",' +
  '"businessData":{"_humanSeal":{"credentialId":"cred-1","userId":"u-1"},"keyId":"k1","note":"café €","ratio":1e-7},' +
  '"eventType":"seal.lifecycle.registered","id":"0b7e2c1a-7d4e-4d7c-9a51-3f0c1e2d4a5b",' +
  '"occurredAt":"2026-10-16T08:30:00.123Z","orgId":"5f3c8a2e-1b4d-4e6f-8a9b-0c1d2e3f4a5b",' +
  '"sealedAt":"2026-10-16T08:30:05.000Z","seq":1}';
// Computed outside Node: `printf '%s' "$VECTOR_JCS" | sha256sum`, and Python's hashlib over
// 32 zero bytes + the payload digest bytes.
const VECTOR_PAYLOAD_HASH = 'fbed03ab846e86c27abf1539b316da11bfd727b13a0f9396a2f83793cfeae9aa';
const VECTOR_CHAIN_HASH = '3e1b898477c0d330e0a26448dfa54cfde654a8f8f6c104aad2b7579c56f7c2ca';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('payload hash: a hand-checkable vector', () => {
  it('serializes the payload to exactly the canonical JSON written out above', () => {
    expect(canonicalPayload(VECTOR)).toBe(VECTOR_JCS);
  });

  it('payloadHash is SHA-256 over the UTF-8 bytes of that text (createHash and sha256sum agree)', () => {
    expect(sha256(Buffer.from(VECTOR_JCS, 'utf8'))).toBe(VECTOR_PAYLOAD_HASH);
    expect(payloadHash(VECTOR)).toBe(VECTOR_PAYLOAD_HASH);
    expect(payloadHash(VECTOR)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('chainHash concatenates the raw 32-byte digests, not their hex text', () => {
    const raw = sha256(Buffer.concat([Buffer.alloc(32), Buffer.from(VECTOR_PAYLOAD_HASH, 'hex')]));
    expect(raw).toBe(VECTOR_CHAIN_HASH);
    expect(chainHash(GENESIS_HASH, VECTOR_PAYLOAD_HASH)).toBe(VECTOR_CHAIN_HASH);
    expect(chainHash(GENESIS_HASH, VECTOR_PAYLOAD_HASH)).not.toBe(sha256(GENESIS_HASH + VECTOR_PAYLOAD_HASH));
    expect(sealBatch(GENESIS_HASH, [VECTOR], SEALED_AT).sealed[0]).toEqual({
      id: VECTOR.id, payloadHash: VECTOR_PAYLOAD_HASH, prevHash: GENESIS_HASH, chainHash: VECTOR_CHAIN_HASH,
    });
  });

  it('the genesis prevHash is 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
  });
});

describe('what the payload covers', () => {
  it('covers every stored field but the three hashes; ignores unknown columns; reduces actor to {type, id}', () => {
    const noisy = { ...VECTOR, payloadHash: 'x', prevHash: 'y', chainHash: 'z', rowVersion: 3, actor: { ...VECTOR.actor, name: 'Ann' } };
    expect(payloadHash(noisy)).toBe(VECTOR_PAYLOAD_HASH);
    expect(Object.keys(payloadOf(noisy)).sort()).toEqual(
      ['actor', 'appGroupId', 'businessData', 'eventType', 'id', 'occurredAt', 'orgId', 'sealedAt', 'seq'],
    );
  });

  it('covers sealedAt: sealBatch hashes the batch time it is given, not a sealedAt on the input', () => {
    expect(payloadHash({ ...VECTOR, sealedAt: '2026-10-16T08:30:05.001Z' })).not.toBe(VECTOR_PAYLOAD_HASH);
    const stale = { ...VECTOR, sealedAt: '1999-01-01T00:00:00.000Z' };
    expect(sealBatch(GENESIS_HASH, [stale], SEALED_AT).sealed[0].payloadHash).toBe(VECTOR_PAYLOAD_HASH);
  });

  it('omits an absent appGroupId; null counts as absent; a present one is hashed', () => {
    const { appGroupId: _, ...without } = VECTOR;
    expect(canonicalPayload(without)).not.toContain('appGroupId');
    expect(payloadHash({ ...without, appGroupId: null })).toBe(payloadHash(without));
    expect(payloadHash({ ...without, appGroupId: undefined })).toBe(payloadHash(without));
    expect(payloadHash(without)).not.toBe(VECTOR_PAYLOAD_HASH);
  });

  it.each([
    ['_humanSeal.userId', { ...VECTOR.businessData, _humanSeal: { userId: 'u-2', credentialId: 'cred-1' } }],
    ['_humanSeal removed', { ratio: 1e-7, note: 'café €', keyId: 'k1' }],
    ['a nested number', { ...VECTOR.businessData, ratio: 0.0000002 }],
  ])('businessData is covered: changing %s changes payloadHash', (_, businessData) => {
    expect(payloadHash({ ...VECTOR, businessData })).not.toBe(VECTOR_PAYLOAD_HASH);
  });

  it('member order in businessData does not matter', () => {
    const reordered = { _humanSeal: { credentialId: 'cred-1', userId: 'u-1' }, keyId: 'k1', note: 'café €', ratio: 1e-7 };
    expect(payloadHash({ ...VECTOR, businessData: reordered })).toBe(VECTOR_PAYLOAD_HASH);
  });

  it('toAuditTimestamp renders ISO 8601 UTC with milliseconds and Z', () => {
    expect(toAuditTimestamp(new Date('2026-10-16T10:30:00+02:00'))).toBe('2026-10-16T08:30:00.000Z');
    expect(() => toAuditTimestamp(new Date(Date.UTC(10_000, 0, 1)))).toThrow(RangeError);
    // The ends of the range, as a Date and as epoch ms; one millisecond beyond either end, and an invalid time, refused.
    for (const edge of ['0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z']) {
      expect(toAuditTimestamp(new Date(edge))).toBe(edge);
      expect(toAuditTimestamp(Date.parse(edge))).toBe(edge);
    }
    expect(() => toAuditTimestamp(Date.parse('0000-01-01T00:00:00.000Z') - 1)).toThrow(RangeError);
    expect(() => toAuditTimestamp(Date.parse('9999-12-31T23:59:59.999Z') + 1)).toThrow(RangeError);
    expect(() => toAuditTimestamp(Number.NaN)).toThrow(RangeError);
  });

  it.each([
    ['occurredAt without milliseconds', { occurredAt: '2026-10-16T08:30:00Z' }],
    ['occurredAt with an offset', { occurredAt: '2026-10-16T10:30:00.000+02:00' }],
    ['seq 0', { seq: 0 }],
    ['fractional seq', { seq: 1.5 }],
    ['unknown actor type', { actor: { type: 'robot', id: 'r' } }],
    ['sealedAt missing', { sealedAt: undefined }],
    ['businessData array', { businessData: [] }],
    ['NaN in businessData', { businessData: { n: Number.NaN } }],
    ['lone surrogate', { businessData: { s: '\ud800' } }],
  ])('rejects %s', (_, patch) => {
    expect(() => payloadHash({ ...VECTOR, ...patch } as unknown as HashableAuditRecord)).toThrow(TypeError);
  });
});

describe('sealBatch', () => {
  it('chains three records from genesis, each prevHash the previous chainHash', () => {
    const records = makeRecords(ORG_A, 3);
    const { sealed, head } = sealBatch(GENESIS_HASH, records, SEALED_AT);
    expect(sealed.map((s) => s.id)).toEqual(records.map((r) => r.id));
    expect(sealed[0].prevHash).toBe(GENESIS_HASH);
    for (let i = 0; i < 3; i++) {
      expect(sealed[i].payloadHash).toBe(payloadHash({ ...records[i], sealedAt: SEALED_AT }));
      expect(sealed[i].chainHash).toBe(chainHash(sealed[i].prevHash, sealed[i].payloadHash));
      if (i > 0) expect(sealed[i].prevHash).toBe(sealed[i - 1].chainHash);
    }
    expect(head).toEqual({ orgId: ORG_A, seq: 3, chainHash: sealed[2].chainHash });
  });

  it('sealing in two batches from the head gives the same hashes as one batch', () => {
    const records = makeRecords(ORG_A, 7);
    const whole = sealBatch(GENESIS_HASH, records, SEALED_AT);
    const first = sealBatch(GENESIS_HASH, records.slice(0, 3), SEALED_AT);
    const second = sealBatch(first.head.chainHash, records.slice(3), SEALED_AT);
    expect([...first.sealed, ...second.sealed]).toEqual(whole.sealed);
    expect(second.head).toEqual(whole.head);
  });

  it.each([
    ['an empty batch', GENESIS_HASH, [] as AuditRecordInput[], RangeError],
    ['seq 1 after a non-genesis head', 'ab'.repeat(32), makeRecords(ORG_A, 2), RangeError],
    ['seq 5 after the genesis hash', GENESIS_HASH, makeRecords(ORG_A, 2, 5), RangeError],
    ['a seq gap', GENESIS_HASH, [...makeRecords(ORG_A, 2), ...makeRecords(ORG_A, 1, 4)], RangeError],
    ['two organizations', GENESIS_HASH, [...makeRecords(ORG_A, 1), ...makeRecords(ORG_B, 1, 2)], RangeError],
    ['an uppercase-hex prevHash', 'AB'.repeat(32), makeRecords(ORG_A, 2, 3), TypeError],
    ['a short prevHash', 'ab', makeRecords(ORG_A, 2, 3), TypeError],
    ['a sealedAt with an offset', GENESIS_HASH, makeRecords(ORG_A, 1), TypeError, '2026-10-16T10:30:05.000+02:00'],
  ])('refuses %s', (_, prev, records, error, sealedAt = SEALED_AT) => {
    expect(() => sealBatch(prev, records, sealedAt)).toThrow(error);
  });
});
