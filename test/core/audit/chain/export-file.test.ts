import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { signCheckpoint } from '../../../../core/audit/chain/checkpoint.ts';
import { ExportFileFormatError, formatExportFile, parseExportFile } from '../../../../core/audit/chain/export-file.ts';
import { verifyExportFile } from '../../../../core/audit/chain/verify-export-file.ts';
import { ORG_A, ORG_B, makeRecords, resealFrom, sealRecords } from './fixtures.ts';
import { makeAuditKey, type TestAuditKey } from './keys.ts';

let key: TestAuditKey;
let recordsA: SealedAuditRecord[];
let recordsB: SealedAuditRecord[];
const checkpoint = (r: SealedAuditRecord, k = key) =>
  signCheckpoint({ orgId: r.orgId, seq: r.seq, chainHash: r.chainHash, sealedAt: r.sealedAt }, k.privateKey, k.kid);

/** A day file: org A seq 1..10 (checkpoints at 5 and 10), org B seq 1..4 (checkpoint at 4). */
async function dayFile(a = recordsA, b = recordsB): Promise<string> {
  return formatExportFile([...a, ...b], [await checkpoint(a[4]), await checkpoint(a[9]), await checkpoint(b[3])]);
}

beforeAll(async () => {
  key = await makeAuditKey();
  const first = sealRecords(makeRecords(ORG_A, 5));
  recordsA = [...first, ...sealRecords(makeRecords(ORG_A, 5, 6), '2026-10-16T09:05:00.000Z', first[4].chainHash)];
  recordsB = sealRecords(makeRecords(ORG_B, 4), '2026-10-16T09:00:00.250Z');
});

describe('export file format', () => {
  it('writes a header, one canonical JSON record per line, each checkpoint after its record', async () => {
    const lines = (await dayFile()).trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 14 + 3);
    expect(lines[0]).toBe('{"format":"aerie-audit-export","type":"header","version":1}');
    for (const line of lines) expect(line).toBe(canonicalize(JSON.parse(line)));
    expect(lines.map((l) => JSON.parse(l).type)).toEqual([
      'header', ...Array(5).fill('record'), 'checkpoint', ...Array(5).fill('record'), 'checkpoint', ...Array(4).fill('record'), 'checkpoint',
    ]);
    const parsed = parseExportFile(lines.join('\n'));
    expect(parsed.records.map((r) => r.record)).toEqual([...recordsA, ...recordsB]);
    expect(parsed.records[0].line).toBe(2);
  });

  it.each([
    ['no header', '{"type":"record"}\n', 'malformed_line'],
    ['an empty file', '\n', 'malformed_line'],
    ['a future version', '{"format":"aerie-audit-export","type":"header","version":2}\n', 'unsupported_format'],
    ['an unknown line type', '{"format":"aerie-audit-export","type":"header","version":1}\n{"type":"comment"}\n', 'malformed_line'],
    ['a line that is not JSON', '{"format":"aerie-audit-export","type":"header","version":1}\n{"type":\n', 'malformed_line'],
  ])('parseExportFile rejects %s', (_, text, reason) => {
    expect(() => parseExportFile(text)).toThrow(ExportFileFormatError);
    try {
      parseExportFile(text);
    } catch (err) {
      expect((err as ExportFileFormatError).reason).toBe(reason);
    }
  });
});

describe('verifyExportFile', () => {
  it('round trip: a fresh day file of two organizations verifies', async () => {
    const report = await verifyExportFile(await dayFile(), key.jwks);
    expect(report).toEqual({
      ok: true, records: 14, checkpoints: 3,
      orgs: [
        { orgId: ORG_A, records: 10, firstSeq: 1, lastSeq: 10, checkpointsMatched: 2, unverifiableCheckpoints: 0, coveredThroughSeq: 10 },
        { orgId: ORG_B, records: 4, firstSeq: 1, lastSeq: 4, checkpointsMatched: 1, unverifiableCheckpoints: 0, coveredThroughSeq: 4 },
      ],
    });
  });

  /** XOR the lowest bit of one byte: `offset` bytes after the first occurrence of `needle`. */
  const flip = (text: string, needle: string, offset: number) => {
    const at = text.indexOf(needle);
    expect(at).toBeGreaterThan(-1);
    const bytes = Buffer.from(text, 'utf8');
    bytes[Buffer.byteLength(text.slice(0, at), 'utf8') + offset] ^= 0x01;
    return bytes.toString('utf8');
  };

  type FlipRow = [string, () => [needle: string, offset: number], string, { line?: number; seq?: number; orgId?: string }];
  it.each<FlipRow>([
    ['a digit of businessData.ip (org A seq 7)', () => ['"ip":"10.0.0.7"', 13], 'payload_hash_mismatch', { line: 9, seq: 7, orgId: ORG_A }],
    ['a UTF-8 byte of "naïve" (org A seq 1)', () => ['naïve', 3], 'payload_hash_mismatch', { line: 2, seq: 1 }],
    ['the milliseconds of sealedAt (org A seq 3)', () => ['"sealedAt":"2026-10-16T09:00:00.000Z","seq":3,', 34], 'payload_hash_mismatch', { line: 4, seq: 3 }],
    ['a stored payloadHash (org B seq 2)', () => [`"payloadHash":"${recordsB[1].payloadHash}"`, 20], 'payload_hash_mismatch', { seq: 2, orgId: ORG_B }],
    ['a stored chainHash (org B seq 2)', () => [`"chainHash":"${recordsB[1].chainHash}"`, 20], 'chain_hash_mismatch', { seq: 2, orgId: ORG_B }],
    ['a stored prevHash (org A seq 8)', () => [`"prevHash":"${recordsA[7].prevHash}"`, 20], 'prev_hash_mismatch', { line: 10, seq: 8 }],
    ['the seq number (org A seq 9 → 8)', () => ['"seq":9,', 6], 'seq_gap', { line: 11, seq: 8 }],
    ['a key name ("eventType" of org A seq 2)', () => ['"eventType":"auth.login.succeeded","id":"5f3c8a2e-rec-000002"', 2], 'payload_hash_mismatch', { line: 3, seq: 2 }],
    ['the line type ("record")', () => ['"type":"record"', 13], 'malformed_line', { line: 2 }],
    ['a newline between records', () => ['}\n{', 1], 'malformed_line', { line: 1 }],
    ['the header version', () => ['"version":1', 10], 'unsupported_format', { line: 1 }],
  ])('one flipped bit in %s is caught', async (_, where, reason, expected) => {
    const [needle, offset] = where();
    const report = await verifyExportFile(flip(await dayFile(), needle, offset), key.jwks);
    expect(report.ok).toBe(false);
    expect(report.failure).toMatchObject({ reason, ...expected });
    if (expected.seq !== undefined) expect(report.failure?.record?.seq).toBe(expected.seq);
  });

  it('a flipped bit in a checkpoint signature is caught', async () => {
    const text = await dayFile();
    const jws = parseExportFile(text).checkpoints[1].jws;
    const report = await verifyExportFile(flip(text, jws, jws.length - 20), key.jwks);
    expect(report.failure).toMatchObject({ reason: 'checkpoint_invalid', line: 13 });
  });

  it('every sampled single-bit flip in record lines is caught (sweep)', async () => {
    const text = formatExportFile([...recordsA.slice(0, 5), ...recordsB], [await checkpoint(recordsA[4]), await checkpoint(recordsB[3])]);
    const bytes = Buffer.from(text, 'utf8');
    const recordLines = new Set(parseExportFile(text).records.map((r) => r.line));
    let line = 1;
    let tried = 0;
    for (let at = 0; at < bytes.length; at++) {
      if (recordLines.has(line) && at % 7 === 0) {
        const copy = Buffer.from(bytes);
        copy[at] ^= 0x01;
        const report = await verifyExportFile(copy.toString('utf8'), key.jwks);
        expect(report.ok, `flip of byte ${at} (line ${line}) went unnoticed`).toBe(false);
        tried++;
      }
      if (bytes[at] === 0x0a) line++;
    }
    expect(tried).toBeGreaterThan(500);
  });

  it('a DBA rewrite with every later hash recomputed fails at the first checkpoint after it', async () => {
    const forged = resealFrom(recordsA.map((r) => (r.seq === 3 ? { ...r, businessData: { ...r.businessData, ip: '6.6.6.6' } } : r)));
    const text = formatExportFile([...forged, ...recordsB], [await checkpoint(recordsA[4]), await checkpoint(recordsA[9]), await checkpoint(recordsB[3])]);
    const report = await verifyExportFile(text, key.jwks);
    expect(report.failure).toMatchObject({ reason: 'checkpoint_mismatch', seq: 5, orgId: ORG_A, line: 6 });
    expect(report.failure?.detail).toMatch(/between seq 1 and 5/);
  });

  it('a rewrite between two checkpoints is bracketed by them, whatever their order in the file', async () => {
    const forged = [...recordsA.slice(0, 5), ...resealFrom(recordsA.slice(5).map((r) => (r.seq === 7 ? { ...r, eventType: 'auth.login.failed' } : r)))];
    const cps = [await checkpoint(recordsA[9]), await checkpoint(recordsA[4])]; // seq 10 listed first
    const text = formatExportFile(forged) + cps.map((jws) => `${canonicalize({ type: 'checkpoint', jws })}\n`).join('');
    const report = await verifyExportFile(text, key.jwks);
    expect(report.failure).toMatchObject({ reason: 'checkpoint_mismatch', seq: 10 });
    expect(report.failure?.detail).toMatch(/between seq 6 and 10/);
  });

  it('a tail after the last checkpoint fails unless allowed', async () => {
    const text = formatExportFile([...recordsA, ...recordsB], [await checkpoint(recordsA[4]), await checkpoint(recordsB[3])]);
    const strict = await verifyExportFile(text, key.jwks);
    expect(strict.failure).toMatchObject({ reason: 'uncovered_tail', orgId: ORG_A, seq: 6, line: 8 });
    const lenient = await verifyExportFile(text, key.jwks, { requireCheckpointCoverage: false });
    expect(lenient.ok).toBe(true);
    expect(lenient.orgs[0].coveredThroughSeq).toBe(5);
  });

  it('a checkpoint signed by a key outside the JWKS fails; one beyond the file is only counted', async () => {
    const stranger = await makeAuditKey('stranger');
    const bad = formatExportFile(recordsB, [await checkpoint(recordsB[3], stranger)]);
    expect((await verifyExportFile(bad, key.jwks)).failure).toMatchObject({ reason: 'checkpoint_invalid' });
    const later = { ...recordsB[3], seq: 9 };
    const beyond = formatExportFile(recordsB, [await checkpoint(recordsB[3]), await checkpoint(later)]);
    const report = await verifyExportFile(beyond, key.jwks);
    expect(report.ok).toBe(true);
    expect(report.orgs[0]).toMatchObject({ checkpointsMatched: 1, unverifiableCheckpoints: 1 });
  });

  it('a file without records fails', async () => {
    expect((await verifyExportFile(formatExportFile([]), key.jwks)).failure).toMatchObject({ reason: 'no_records' });
  });
});

describe('record lines', () => {
  const text = fc.string({ unit: 'binary', maxLength: 12 });
  const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ unit: 'binary' }), tie('value'), { maxKeys: 4 })),
  })).value;
  const record = fc.record({
    id: text, orgId: text, seq: fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true })), eventType: text, occurredAt: text, sealedAt: text,
    actor: fc.record({ type: text, id: text }), appGroupId: text, hashVersion: fc.constantFrom(1, 2), businessData: fc.dictionary(fc.string({ unit: 'binary' }), json, { maxKeys: 5 }),
    payloadHash: text, prevHash: text, chainHash: text,
  }, { requiredKeys: ['id', 'orgId', 'seq', 'eventType', 'occurredAt', 'sealedAt', 'actor', 'businessData', 'payloadHash', 'prevHash', 'chainHash'] });
  const line = (r: unknown) => formatExportFile([r as SealedAuditRecord]).split('\n')[1];

  it('each is the RFC 8785 text of the record with type "record", whatever its strings, numbers and members (property)', () => {
    fc.assert(fc.property(record, (r) => {
      expect(line(r)).toBe(canonicalize({ ...r, type: 'record' }));
    }), { numRuns: 500 });
  });

  it('records of other shapes (an unknown member, an actor with more members, an undefined member, seq as text) give the library text too', () => {
    const [r] = recordsA;
    for (const odd of [{ ...r, extra: { z: 1, a: [2] } }, { ...r, actor: { ...r.actor, name: 'x' } }, { ...r, appGroupId: undefined }, { ...r, seq: String(r.seq) }]) {
      expect(line(odd)).toBe(canonicalize({ ...odd, type: 'record' }));
    }
  });
});
