import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Command, CommanderError } from 'commander';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SealedAuditRecord } from '../../../../core/audit/chain/audit-record.ts';
import { linkV2, payloadHashV2 } from '../../../../core/audit/chain/chain-hash-v2.ts';
import { signCheckpoint } from '../../../../core/audit/chain/checkpoint.ts';
import { compactDayFile } from '../../../../core/audit/chain/chain-tasks.ts';
import { chainWorkers } from '../../../helpers/chain-workers.ts';
import {
  DAY_FILE_FORMAT, DAY_FILE_ROW_GROUP_ROWS, DAY_FILE_VERSION, dayFileColumns, dayRecordsNdjson, decodeDayFile, encodeDayFile, verifyDayFile,
} from '../../../../core/audit/chain/day-file.ts';
import { canonicalJson } from '../../../../core/audit/chain/canonical-json.ts';
import { registerAuditFileCommands } from '../../../../core/audit/chain/verify-file.command.ts';
import { ORG_A, ORG_B, makeRecords, sealRecords } from './fixtures.ts';
import { makeAuditKey, type TestAuditKey } from './keys.ts';

const DAY = '2026-10-16';

/** Seven version 1 records (seq 1..7) followed by three version 2 records (seq 8..10), all sealed on DAY. */
function mixedChain(): SealedAuditRecord[] {
  const v1 = sealRecords(makeRecords(ORG_A, 7), '2026-10-16T09:00:00.000Z');
  const later = makeRecords(ORG_A, 3, 8);
  const sealedAt = '2026-10-16T23:59:59.999Z';
  const links = linkV2(v1[6].chainHash, 8, later.map((e) => payloadHashV2(e)).join(''), sealedAt);
  const v2 = later.map((e, i): SealedAuditRecord => ({ ...e, sealedAt, hashVersion: 2, payloadHash: payloadHashV2(e), ...links[i] }));
  return [...v1, ...v2];
}

/** Re-encode a decoded file with changes, keeping its metadata unless edited (what someone editing it with a Parquet tool does). */
async function reencode(bytes: Uint8Array, edit: { records?: (r: SealedAuditRecord[]) => void; meta?: Record<string, string> }): Promise<Uint8Array> {
  const { records } = await decodeDayFile(bytes);
  edit.records?.(records);
  const kv = (parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).key_value_metadata ?? [])
    .map((e) => ({ key: e.key, value: edit.meta?.[e.key] ?? e.value }));
  return reencodeWithKv(records, kv);
}

function reencodeWithKv(records: SealedAuditRecord[], kvMetadata: Array<{ key: string; value?: string }>): Uint8Array {
  return new Uint8Array(parquetWriteBuffer({
    columnData: dayFileColumns(records), codec: 'GZIP', compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) }, kvMetadata,
  }));
}

let key: TestAuditKey;
let records: SealedAuditRecord[];
let good: Uint8Array;
let dir: string;

beforeAll(async () => {
  key = await makeAuditKey();
  records = mixedChain();
  const checkpoints = [await signCheckpoint(records[4], key.privateKey, key.kid), await signCheckpoint(records[9], key.privateKey, key.kid)];
  good = encodeDayFile({ records, day: DAY, checkpoints }).bytes;
  dir = await mkdtemp(join(tmpdir(), 'aerie-day-file-'));
  await writeFile(join(dir, 'jwks.json'), JSON.stringify(key.jwks));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('audit day files (Parquet): encode, read back, verify offline', () => {
  it('round-trips every field of a mixed version 1 / version 2 run and verifies', async () => {
    const { meta, records: back } = await decodeDayFile(good);
    expect(back).toEqual(records);
    expect(meta).toMatchObject({ orgId: ORG_A, day: DAY, firstSeq: 1, lastSeq: 10, prevHash: '0'.repeat(64), headHash: records[9].chainHash });
    expect(Buffer.from(good.subarray(0, 4)).toString()).toBe('PAR1');
    const report = await verifyDayFile(good, key.jwks);
    expect(report).toMatchObject({ ok: true, records: 10, checkpoints: 2, coveredThroughSeq: 10 });
  });

  it('a run in the middle of the chain verifies from its prevHash', async () => {
    const tail = records.slice(3);
    const bytes = encodeDayFile({ records: tail, day: DAY, checkpoints: [await signCheckpoint(records[9], key.privateKey, key.kid)] }).bytes;
    expect(await verifyDayFile(bytes, key.jwks)).toMatchObject({ ok: true, records: 7, meta: { firstSeq: 4, prevHash: records[2].chainHash } });
  });

  it('the compaction task on core.workers answers the same bytes and SHA-256 as in-line encoding', async () => {
    const { workers } = chainWorkers();
    const pool = { compact: (task: Parameters<typeof compactDayFile>[1]) => compactDayFile(workers, task) };
    try {
      const checkpoints = [await signCheckpoint(records[9], key.privateKey, key.kid)];
      const inline = encodeDayFile({ records, day: DAY, checkpoints });
      const ndjson = dayRecordsNdjson(records);
      const pooled = await pool.compact({ records: ndjson, day: DAY, checkpoints });
      expect(Buffer.from(pooled.bytes).equals(Buffer.from(inline.bytes))).toBe(true);
      expect(ndjson.byteLength).toBe(0); // transferred to the thread, not copied
      // A view into a larger buffer is copied: the caller's bytes stay.
      const inner = dayRecordsNdjson(records);
      const framed = new Uint8Array(inner.byteLength + 2);
      framed.set(inner, 1);
      const view = framed.subarray(1, 1 + inner.byteLength);
      expect((await pool.compact({ records: view, day: DAY, checkpoints })).sha256).toBe(inline.sha256);
      expect(Buffer.from(view).equals(Buffer.from(inner))).toBe(true);
      expect(pooled.sha256).toBe(hash('sha256', inline.bytes, 'hex'));
      await expect(pool.compact({ records: new Uint8Array(0), day: DAY, checkpoints })).rejects.toThrow(/at least one record/);
    } finally {
      await workers.close();
    }
    await expect(pool.compact({ records: new Uint8Array(0), day: DAY, checkpoints: [] })).rejects.toThrow(/closed/);
  });

  it('gives the same bytes from the objects, from their NDJSON text, and from the columns as plain strings and Dates', () => {
    // 300 records: repeated and distinct text, non-ASCII, missing appGroupIds, values past the column buffers' first size.
    const events = makeRecords(ORG_A, 300);
    events[7].businessData.long = 'é'.repeat(20_000);
    events[8].eventType = 'naïve.événement';
    const run = sealRecords(events);
    const checkpoints = ['a.b.c'];
    const encoded = encodeDayFile({ records: run, day: DAY, checkpoints });
    expect(encodeDayFile({ records: dayRecordsNdjson(run), day: DAY, checkpoints }).bytes).toEqual(encoded.bytes);
    expect(encodeDayFile({ records: Buffer.from(`${Buffer.from(dayRecordsNdjson(run)).toString()}\n`), day: DAY, checkpoints }).bytes).toEqual(encoded.bytes);
    const text = (f: (r: SealedAuditRecord) => string | null, name: string) => ({ name, data: run.map(f), type: 'STRING' as const, nullable: name === 'appGroupId' });
    const time = (f: (r: SealedAuditRecord) => string, name: string) => ({ name, data: run.map((r) => new Date(f(r))), type: 'TIMESTAMP' as const, nullable: false });
    const plain = new Uint8Array(parquetWriteBuffer({
      columnData: [
        text((r) => r.id, 'id'), text((r) => r.orgId, 'orgId'), { name: 'seq', data: run.map((r) => BigInt(r.seq)), type: 'INT64', nullable: false },
        text((r) => r.eventType, 'eventType'), time((r) => r.occurredAt, 'occurredAt'), text((r) => r.actor.type, 'actorType'), text((r) => r.actor.id, 'actorId'),
        text((r) => r.appGroupId ?? null, 'appGroupId'), text((r) => canonicalJson(r.businessData), 'businessData'), time((r) => r.sealedAt, 'sealedAt'),
        { name: 'hashVersion', data: run.map((r) => r.hashVersion ?? 1), type: 'INT32', nullable: false },
        text((r) => r.payloadHash, 'payloadHash'), text((r) => r.prevHash, 'prevHash'), text((r) => r.chainHash, 'chainHash'),
      ],
      codec: 'GZIP', compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) }, statistics: false, rowGroupSize: DAY_FILE_ROW_GROUP_ROWS,
      createdBy: `aerie ${DAY_FILE_FORMAT} ${DAY_FILE_VERSION}`,
      kvMetadata: parquetMetadata(encoded.bytes.buffer.slice(0) as ArrayBuffer).key_value_metadata!.map((e) => ({ key: e.key, value: e.value! })),
    }));
    expect(Buffer.from(encoded.bytes).equals(Buffer.from(plain))).toBe(true);
  });

  it('refuses to encode what could not verify', () => {
    expect(() => encodeDayFile({ records: [records[0], records[2]], day: DAY, checkpoints: [] })).toThrow(/follows/);
    expect(() => encodeDayFile({ records: [...records, ...sealRecords(makeRecords(ORG_B, 1))], day: DAY, checkpoints: [] })).toThrow(/another organization/);
    expect(() => encodeDayFile({ records, day: '2026-02-30', checkpoints: [] })).toThrow(RangeError);
  });

  const tampered: Array<[what: string, make: () => Promise<Uint8Array>, reason: string]> = [
    ['one byte of businessData changed and re-encoded', () => reencode(good, { records: (r) => { r[5].businessData.ip = '10.0.0.7'; } }), 'payload_hash_mismatch'],
    ['a record removed and re-encoded', () => reencode(good, { records: (r) => { r.splice(5, 1); } }), 'metadata_mismatch'],
    ['headHash edited in the metadata', () => reencode(good, { meta: { 'aerie.headHash': 'f'.repeat(64) } }), 'metadata_mismatch'],
    ['lastSeq edited in the metadata', () => reencode(good, { meta: { 'aerie.lastSeq': '9' } }), 'metadata_mismatch'],
    ['the day edited in the metadata', () => reencode(good, { meta: { 'aerie.day': '2026-10-17' } }), 'metadata_mismatch'],
    ['the checkpoints removed', () => reencode(good, { meta: { 'aerie.checkpoints': '[]' } }), 'uncovered_tail'],
    ['a checkpoint signature altered', async () => {
      const { meta } = await decodeDayFile(good);
      const jws = meta.checkpoints[1];
      return reencode(good, { meta: { 'aerie.checkpoints': JSON.stringify([jws.slice(0, -4) + (jws.endsWith('AAAA') ? 'BBBB' : 'AAAA')]) } });
    }, 'checkpoint_invalid'],
    ['a byte of the raw file flipped', async () => {
      const copy = Uint8Array.from(good);
      copy[Math.floor(copy.length / 3)] ^= 0x01;
      return copy;
    }, ''],
    ['not Parquet at all', async () => new TextEncoder().encode('{"format":"aerie-audit-export"}'), 'format'],
  ];
  it.each(tampered)('fails for %s', async (_what, make, reason) => {
    const report = await verifyDayFile(await make(), key.jwks);
    expect(report.ok).toBe(false);
    if (reason) expect(report.failure?.reason).toBe(reason);
  });

  it('a rewritten chain with every later hash recomputed is caught by the checkpoint', async () => {
    const { resealFrom } = await import('./fixtures.ts');
    const v1 = records.slice(0, 7).map((r) => ({ ...r }));
    v1[2].businessData = { ...v1[2].businessData, ip: '10.9.9.9' };
    const resealed = [...resealFrom(v1)];
    const bytes = encodeDayFile({ records: resealed, day: DAY, checkpoints: [await signCheckpoint(records[4], key.privateKey, key.kid)] }).bytes;
    expect((await verifyDayFile(bytes, key.jwks, { allowUncoveredTail: true })).failure?.reason).toBe('checkpoint_mismatch');
  });
});

describe('aerie audit verify-file on a day file', () => {
  async function aerie(...args: string[]) {
    const io = { out: '', err: '' };
    const program = new Command('aerie').exitOverride().configureOutput({ writeOut: (s) => (io.out += s), writeErr: (s) => (io.err += s) });
    registerAuditFileCommands(program);
    const error = await program.parseAsync(args, { from: 'user' }).then(() => undefined, (e: unknown) => e as CommanderError);
    return { ...io, error };
  }

  it('prints OK for an intact day file, detected by its magic bytes whatever its name', async () => {
    const file = join(dir, 'day.bin');
    await writeFile(file, good);
    const { out, error } = await aerie('audit', 'verify-file', file, '--jwks', join(dir, 'jwks.json'));
    expect(error).toBeUndefined();
    expect(out).toMatch(/^OK .*day file, 10 records, 2 checkpoints/);
    expect(out).toContain(`org ${ORG_A}, day ${DAY}: seq 1..10`);
  });

  it('as a real process: exit code 0 for the intact file, 1 for a tampered one', async () => {
    const goodFile = join(dir, `${DAY}.parquet`);
    const badFile = join(dir, 'tampered.parquet');
    await writeFile(goodFile, good);
    await writeFile(badFile, await reencode(good, { records: (r) => { r[5].businessData.ip = '10.0.0.7'; } }));
    const script = "import { Command } from 'commander'; import { registerAuditFileCommands } from './core/audit/chain/verify-file.command.ts';" +
      ' const p = new Command(\'aerie\'); registerAuditFileCommands(p); await p.parseAsync();';
    const run = (file: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, 'audit', 'verify-file', file, '--jwks', join(dir, 'jwks.json')], { cwd: process.cwd() })
        .then(({ stdout }) => ({ code: 0, stdout }), (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
    const [ok, bad] = await Promise.all([run(goodFile), run(badFile)]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^OK /);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('first failure: payload_hash_mismatch at seq 6');
    expect(bad.stdout).toContain('first broken record:');
  });
});
