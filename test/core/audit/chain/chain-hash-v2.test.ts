import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../core/audit/chain/canonical-json.ts';
import { GENESIS_HASH, type SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { chainHashV2, linkV2, payloadHashV2, payloadHashV2Unchecked, payloadV2Of, type AuditEventV2 } from '../../../../core/audit/chain/chain-hash-v2.ts';
import { recordChainHash, recordPayloadHash } from '../../../../core/audit/chain/record-hash.ts';
import { verifyRecords } from '../../../../core/audit/chain/verify-chain.ts';
import { chainWorkers } from '../../../helpers/chain-workers.ts';
import { renderIngestRows, type IngestRow } from '../../../../core/audit/chain/ingest-rows.ts';
import { VECTOR_EVENT } from './fixtures.ts';
import { formatExportFile } from '../../../../core/audit/chain/export-file.ts';
import { verifyExportFile } from '../../../../core/audit/chain/verify-export-file.ts';

// The version 1 vector of chain-hash.test.ts without `seq` and `sealedAt`, which version 2 moves
// into the link. Hashes computed outside Node, with Python's hashlib and struct:
//   p  = sha256(JCS.encode())
//   c1 = sha256(bytes(32) + bytes.fromhex(p) + struct.pack('>Q', 1) + struct.pack('>q', 1792139405000))
//   c2 = sha256(bytes.fromhex(c1) + bytes.fromhex(p) + struct.pack('>Q', 2) + struct.pack('>q', 1792139405000))
const SEALED_AT = '2026-10-16T08:30:05.000Z'; // 1792139405000 ms
const EVENT: AuditEventV2 = VECTOR_EVENT;
const JCS =
  '{"actor":{"id":"acc_1","type":"account"},"appGroupId":"appgroup_7",' +
  '"businessData":{"_humanSeal":{"credentialId":"cred-1","userId":"u-1"},"keyId":"k1","note":"café €","ratio":1e-7},' +
  '"eventType":"seal.lifecycle.registered","id":"0b7e2c1a-7d4e-4d7c-9a51-3f0c1e2d4a5b",' +
  '"occurredAt":"2026-10-16T08:30:00.123Z","orgId":"5f3c8a2e-1b4d-4e6f-8a9b-0c1d2e3f4a5b"}';
const PAYLOAD = 'efb0721648c141a36468be42408abaf07029197dec4f08b2a604c2fe042dffdf';
const CHAIN_1 = '19d4c84b0476a4b2347e95175d3f5e8a381125fca37a532d8b981fd68fd99588';
const CHAIN_2 = '1a14d105568855a5303328f7992a296e0b9e22573d628304347e8aa0a0287ab4';

const sealed = (seq: number, prevHash: string, chainHash: string): SealedAuditRecord => ({
  ...EVENT, seq, sealedAt: SEALED_AT, hashVersion: 2, payloadHash: PAYLOAD, prevHash, chainHash,
});

describe('record hash version 2: a hand-checkable vector', () => {
  it('the payload leaves out seq and sealedAt; its canonical JSON is written out above', () => {
    expect(canonicalJson(payloadV2Of({ ...EVENT, seq: 9 } as AuditEventV2))).toBe(JCS);
    expect(payloadHashV2(EVENT)).toBe(PAYLOAD);
  });

  it('the link covers prevHash, payloadHash, seq (uint64 big-endian) and sealedAt (epoch ms, int64 big-endian)', () => {
    expect(chainHashV2(GENESIS_HASH, PAYLOAD, 1, SEALED_AT)).toBe(CHAIN_1);
    expect(chainHashV2(CHAIN_1, PAYLOAD, 2, SEALED_AT)).toBe(CHAIN_2);
    expect(linkV2(GENESIS_HASH, 1, PAYLOAD + PAYLOAD, SEALED_AT)).toEqual([
      { prevHash: GENESIS_HASH, chainHash: CHAIN_1 }, { prevHash: CHAIN_1, chainHash: CHAIN_2 },
    ]);
  });

  it('refuses malformed input instead of hashing it', () => {
    expect(() => chainHashV2(GENESIS_HASH, PAYLOAD, 0, SEALED_AT)).toThrow(TypeError);
    expect(() => chainHashV2(GENESIS_HASH, PAYLOAD, 1, '2026-10-16T08:30:05Z')).toThrow(TypeError);
    expect(() => chainHashV2(PAYLOAD.toUpperCase(), PAYLOAD, 1, SEALED_AT)).toThrow(TypeError);
    expect(() => linkV2(GENESIS_HASH, 1, PAYLOAD.slice(1), SEALED_AT)).toThrow(TypeError);
    expect(() => payloadHashV2({ ...EVENT, actor: { type: 'robot' as never, id: 'x' } })).toThrow(TypeError);
    expect(() => payloadHashV2({ ...EVENT, businessData: { x: Number.NaN } })).toThrow();
  });
});

describe('the composed canonical payload equals the library\'s RFC 8785 text', () => {
  const text = fc.string({ unit: 'binary', maxLength: 20 }).filter((t) => t.length > 0);
  const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 4 })),
  })).value;
  const event = fc.record({
    id: text, orgId: text, eventType: text, actorId: text, appGroupId: fc.option(text, { nil: undefined }), businessData: fc.dictionary(fc.string({ unit: 'binary' }), json, { maxKeys: 5 }),
    type: fc.constantFrom('account', 'apiKey', 'machine', 'agent', 'system'),
  });

  it('for arbitrary events (any UTF-16 text, numbers, nesting), or both refuse', () => {
    fc.assert(fc.property(event, (e) => {
      const ev = { id: e.id, orgId: e.orgId, eventType: e.eventType, occurredAt: SEALED_AT, actor: { type: e.type, id: e.actorId }, appGroupId: e.appGroupId, businessData: e.businessData } as AuditEventV2;
      let library: string | Error;
      try {
        library = createHash('sha256').update(canonicalJson(payloadV2Of(ev))).digest('hex');
      } catch (err) {
        library = err as Error;
      }
      if (library instanceof Error) {
        expect(() => payloadHashV2(ev)).toThrow();
        return;
      }
      expect(payloadHashV2(ev)).toBe(library);
      const { businessData, ...fields } = payloadV2Of(ev);
      expect(payloadHashV2Unchecked(fields, canonicalJson(businessData))).toBe(library);
    }), { numRuns: 2000 });
  });
});

describe('the link input', () => {
  it('writes seq as a 64-bit big-endian integer beyond 32 bits (and sealedAt as 64-bit ms)', () => {
    for (const seq of [1, 0xffff_ffff, 0x1_0000_0000, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER]) {
      const input = Buffer.alloc(80);
      Buffer.from(GENESIS_HASH, 'hex').copy(input, 0);
      Buffer.from(PAYLOAD, 'hex').copy(input, 32);
      input.writeBigUInt64BE(BigInt(seq), 64);
      input.writeBigInt64BE(1792139405000n, 72);
      const expected = createHash('sha256').update(input).digest('hex');
      expect(chainHashV2(GENESIS_HASH, PAYLOAD, seq, SEALED_AT)).toBe(expected);
      expect(linkV2(GENESIS_HASH, seq, PAYLOAD, SEALED_AT)[0].chainHash).toBe(expected);
    }
  });
});

describe('verification dispatches on each record\'s version', () => {
  const chain = [sealed(1, GENESIS_HASH, CHAIN_1), sealed(2, CHAIN_1, CHAIN_2)];

  it('a version 2 run verifies; the per-record functions agree with the vector', () => {
    expect(verifyRecords(chain)).toMatchObject({ ok: true, checked: 2, head: { seq: 2, chainHash: CHAIN_2 } });
    expect(recordPayloadHash(chain[1])).toBe(PAYLOAD);
    expect(recordChainHash(chain[1], CHAIN_1, PAYLOAD)).toBe(CHAIN_2);
  });

  it.each([
    ['sealedAt moved by 1 ms', { sealedAt: '2026-10-16T08:30:05.001Z' }, 'chain_hash_mismatch'],
    ['businessData changed', { businessData: { ...EVENT.businessData, keyId: 'k2' } }, 'payload_hash_mismatch'],
    ['marked version 1', { hashVersion: 1 }, 'payload_hash_mismatch'],
    ['an unknown version', { hashVersion: 3 }, 'payload_hash_mismatch'],
  ] as const)('catches a record whose %s', (_, change, reason) => {
    const tampered = [chain[0], { ...chain[1], ...change } as SealedAuditRecord];
    expect(verifyRecords(tampered)).toMatchObject({ ok: false, checked: 1, firstBroken: { seq: 2, reason } });
  });

  it('a renumbered version 2 record fails its link even where the run stays gap-free', () => {
    // The only record of a run starting at seq 5 (anchored by its own prevHash): the link covers seq.
    expect(verifyRecords([{ ...chain[1], seq: 5 }])).toMatchObject({ ok: false, firstBroken: { reason: 'chain_hash_mismatch' } });
  });

  it('an export file carries hashVersion and verifies offline; the same file with the version dropped does not', async () => {
    const text = formatExportFile(chain);
    expect(text).toContain('"hashVersion":2');
    expect(await verifyExportFile(text, { keys: [] }, { requireCheckpointCoverage: false })).toMatchObject({ ok: true });
    const dropped = text.replaceAll('"hashVersion":2,', '');
    expect(await verifyExportFile(dropped, { keys: [] }, { requireCheckpointCoverage: false })).toMatchObject({ ok: false });
  });

  it('the worker pool renders an ingestion batch exactly as in-line: hashes, canonical texts, COPY rows; and the same size problem', async () => {
    const { workers, tasks: pool } = chainWorkers();
    try {
      const rows: IngestRow[] = Array.from({ length: 50 }, (_, i) => [`e-${i}`, EVENT.orgId, 'app.x\ty', SEALED_AT, 'apiKey', `k\\${i}`, i % 2 ? 'ag_1' : null, { i, tab: '\t', nl: '\n', é: 'ü€😀' }]);
      const options = { maxBytes: 1000, copy: true, keepCanonical: true };
      const inline = renderIngestRows(rows, null, options);
      const pooled = await pool.renderIngest(JSON.stringify(rows), options);
      if ('problem' in inline || 'problem' in pooled) throw new Error('unexpected problem');
      // Bytes moved from the worker arrive as a plain Uint8Array.
      expect({ ...pooled, copy: Buffer.from(pooled.copy!) }).toEqual(inline);
      const hashes = rows.map(([id, orgId, eventType, occurredAt, type, actorId, appGroupId, businessData]) =>
        payloadHashV2({ id, orgId, eventType, occurredAt, actor: { type, id: actorId }, appGroupId, businessData } as AuditEventV2));
      expect(inline.hashes).toBe(hashes.join(''));
      // COPY text: tab, newline and backslash escaped; NULL as \N; UTF-8.
      const first = Buffer.from(inline.copy!.subarray(0, inline.ends![0])).toString('utf8');
      expect(first).toBe(`e-0\t${EVENT.orgId}\tapp.x\\ty\t${SEALED_AT}\tapiKey\tk\\\\0\t\\N\t${inline.canonical![0].replaceAll('\\', '\\\\')}\t${hashes[0]}\t2\t`);
      const big: IngestRow[] = [...rows.slice(0, 3), [...rows[3].slice(0, 7), { s: 'x'.repeat(2000) }] as unknown as IngestRow];
      const problem = { problem: { index: 3, field: 'businessData', rule: 'must be at most 1000 bytes as canonical JSON' } };
      expect(renderIngestRows(big, null, options)).toEqual(problem);
      expect(await pool.renderIngest(JSON.stringify(big), options)).toEqual(problem);
    } finally {
      await workers.close();
    }
  });
});
