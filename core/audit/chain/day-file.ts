/**
 * Audit day files: one organization's sealed records of one UTC day as one Parquet file
 * (`hyparquet-writer`, GZIP through `node:zlib`), with the chain positions, hashes and signed
 * checkpoints in it, so the file verifies offline (`aerie audit verify-file day.parquet --jwks …`).
 * Pure functions over plain data: the compaction task (`./compact-day.task.ts`) encodes, the
 * archive and the CLI decode and verify.
 *
 * @see docs/audit.md ("Archive: day files")
 * @see ./README.md
 */
import { hash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { JSONWebKeySet } from 'jose';
import { parquetMetadata, parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { AUDIT_TIMESTAMP, GENESIS_HASH, toAuditTimestamp, type SealedAuditRecord } from './audit-record.ts';
import { verifyAgainstCheckpoint, verifyCheckpoint } from './checkpoint.ts';
import { DayFileColumns } from './day-file-columns.ts';
import { verifyRecords, type ChainBreakReason } from './verify-chain.ts';

/** `aerie.format` of a day file. @see docs/audit.md */
export const DAY_FILE_FORMAT = 'aerie-audit-day';
/** `aerie.version` of the day files this module writes and reads. @see docs/audit.md */
export const DAY_FILE_VERSION = 1;

export { dayFileColumns } from './day-file-columns.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/**
 * Rows per Parquet row group in the day files {@link encodeDayFile} writes (the last group holds
 * the rest): what {@link dayFileRecords} holds in memory at a time — a few MB decoded.
 * @see docs/audit.md "Archive: day files"
 */
export const DAY_FILE_ROW_GROUP_ROWS = 10_000;
/** Milliseconds in a UTC day. @see docs/audit.md */
export const DAY_MS = 86_400_000;

/**
 * The key-value metadata of a day file (each stored under `aerie.<name>`, as text).
 *
 * Shape: `{ orgId, day: 'YYYY-MM-DD' (UTC), firstSeq, lastSeq, prevHash (chainHash at firstSeq − 1,
 * the genesis hash for seq 1), headHash (chainHash at lastSeq), checkpoints: compact JWS[] }` —
 * `checkpoints` are the signed checkpoints inside `firstSeq..lastSeq`, the last one at `lastSeq`
 * when the file was written by Aerie.
 *
 * @see docs/audit.md
 */
export interface DayFileMeta {
  orgId: string;
  day: string;
  firstSeq: number;
  lastSeq: number;
  prevHash: string;
  headHash: string;
  checkpoints: string[];
}

/**
 * What the compaction task gets: `records` — the day's sealed records of one organization,
 * sorted by `seq`, as UTF-8 NDJSON ({@link dayRecordsNdjson}: one record's JSON per line; parsed a
 * line at a time) or the objects; `day` — `YYYY-MM-DD`;
 * `checkpoints` — compact JWS strings to embed.
 *
 * @see docs/audit.md
 */
export interface DayFileInput {
  records: SealedAuditRecord[] | Uint8Array;
  day: string;
  checkpoints: string[];
}

/** What {@link encodeDayFile} answers: the file's bytes and their SHA-256 (64 lowercase hex). */
export interface EncodedDayFile {
  bytes: Uint8Array;
  sha256: string;
  meta: DayFileMeta;
}

/** A day file that cannot be read as one (not Parquet, wrong format, missing metadata). */
export class DayFileFormatError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DayFileFormatError';
  }
}

/**
 * The column order of a day file (Parquet schema, top-level, no nesting):
 * `id, orgId, eventType, actorType, actorId, appGroupId, businessData` STRING (UTF-8; `appGroupId`
 * nullable, `businessData` the RFC 8785 canonical JSON text), `seq` INT64, `occurredAt`, `sealedAt`
 * TIMESTAMP (INT64 milliseconds since the epoch, UTC), `hashVersion` INT32 (1 or 2),
 * `payloadHash, prevHash, chainHash` STRING (64 lowercase hex).
 *
 * @see docs/audit.md
 */
export const DAY_FILE_COLUMNS = [
  'id', 'orgId', 'seq', 'eventType', 'occurredAt', 'actorType', 'actorId', 'appGroupId', 'businessData', 'sealedAt', 'hashVersion', 'payloadHash', 'prevHash', 'chainHash',
] as const;

/** Whether `bytes` look like a Parquet file: `PAR1` at both ends. @see docs/audit.md */
export function isParquet(bytes: Uint8Array): boolean {
  const magic = (at: number) => bytes[at] === 0x50 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x52 && bytes[at + 3] === 0x31;
  return bytes.length >= 12 && magic(0) && magic(bytes.length - 4);
}

/**
 * The UTC calendar day of a moment, `YYYY-MM-DD`.
 * @param at - a Date or epoch milliseconds.
 * @see docs/audit.md "Archive: day files"
 */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * The start of a UTC day in epoch milliseconds.
 *
 * @param day - `YYYY-MM-DD`.
 * @returns epoch ms of `dayT00:00:00.000Z`.
 * @throws RangeError for anything but a real calendar day.
 * @see docs/audit.md
 */
export function dayStartMs(day: string): number {
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  if (!DAY.test(day) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== day) throw new RangeError(`day must be YYYY-MM-DD, got ${day}`);
  return ms;
}

/**
 * Encode one organization's day as a Parquet day file. Rows are the records in the given order,
 * which must be `seq` order, gap-free, one organization (checked: a file that cannot verify is
 * never written). Deterministic: the same input gives the same bytes.
 *
 * @param input - {@link DayFileInput}.
 * @returns {@link EncodedDayFile}.
 * @throws RangeError for no records, several organizations, a `seq` gap or a malformed day.
 * @example const { bytes, sha256 } = encodeDayFile({ records, day: '2026-11-24', checkpoints: [jws] });
 * @see docs/audit.md
 */
export function encodeDayFile(input: DayFileInput): EncodedDayFile {
  dayStartMs(input.day);
  const columns = input.records instanceof Uint8Array ? ndjsonColumns(input.records) : DayFileColumns.of(input.records, true);
  const run = columns.dayRun();
  const meta: DayFileMeta = {
    orgId: run.orgId, day: input.day, firstSeq: run.firstSeq, lastSeq: run.lastSeq, prevHash: run.prevHash, headHash: run.headHash, checkpoints: [...input.checkpoints],
  };
  const buffer = parquetWriteBuffer({
    columnData: columns.columns(),
    codec: 'GZIP',
    // A Buffer is a Uint8Array: the writer copies it into the file, no second copy here.
    compressors: { GZIP: (bytes: Uint8Array) => gzipSync(bytes) },
    // Statistics of the hash and id columns cost bytes and tell a reader nothing.
    statistics: false,
    rowGroupSize: DAY_FILE_ROW_GROUP_ROWS,
    createdBy: `aerie ${DAY_FILE_FORMAT} ${DAY_FILE_VERSION}`,
    kvMetadata: metaToKv(meta),
  });
  const bytes = new Uint8Array(buffer);
  return { bytes, sha256: hash('sha256', bytes, 'hex'), meta };
}

/**
 * The serialized form of {@link DayFileInput.records}: each record's JSON on its own line (NDJSON;
 * `JSON.stringify` escapes line breaks inside strings, so a line is exactly one record), UTF-8, in
 * an `ArrayBuffer` of its own — what the compaction pool transfers to its thread without a copy.
 * @param records - one organization's sealed records, in seq order.
 * @returns the lines joined by `\n`, UTF-8.
 * @see docs/audit.md "Archive: day files"
 */
export function dayRecordsNdjson(records: readonly SealedAuditRecord[]): Uint8Array {
  return new TextEncoder().encode(records.map((r) => JSON.stringify(r)).join('\n'));
}

const NEWLINE = 0x0a;

/** The columns of UTF-8 NDJSON records, parsed one line at a time so each parsed record is garbage at once. */
function ndjsonColumns(bytes: Uint8Array): DayFileColumns {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  forEachLine(text, () => count++);
  const columns = new DayFileColumns(count, true);
  forEachLine(text, (from, to) => columns.push(JSON.parse(text.toString('utf8', from, to)) as SealedAuditRecord));
  return columns;
}

/** Calls `line(from, to)` for each non-empty line of `text` (`\n`-separated). */
function forEachLine(text: Buffer, line: (from: number, to: number) => void): void {
  for (let from = 0; from < text.length;) {
    let to = text.indexOf(NEWLINE, from);
    if (to < 0) to = text.length;
    if (to > from) line(from, to);
    from = to + 1;
  }
}

function metaToKv(meta: DayFileMeta): Array<{ key: string; value: string }> {
  return [
    { key: 'aerie.format', value: DAY_FILE_FORMAT },
    { key: 'aerie.version', value: String(DAY_FILE_VERSION) },
    { key: 'aerie.orgId', value: meta.orgId },
    { key: 'aerie.day', value: meta.day },
    { key: 'aerie.firstSeq', value: String(meta.firstSeq) },
    { key: 'aerie.lastSeq', value: String(meta.lastSeq) },
    { key: 'aerie.prevHash', value: meta.prevHash },
    { key: 'aerie.headHash', value: meta.headHash },
    { key: 'aerie.checkpoints', value: JSON.stringify(meta.checkpoints) },
  ];
}

const GUNZIP = { GZIP: (bytes: Uint8Array) => new Uint8Array(gunzipSync(bytes)) };

/**
 * Read a day file: its metadata and its records, shaped exactly as they were hashed.
 *
 * @param bytes - the whole file.
 * @returns `{ meta, records }` (records in file order; not verified here).
 * @throws DayFileFormatError when it is not Parquet, not an Aerie day file of a known version,
 *   lacks a metadata key, or a row cannot be decoded.
 * @see docs/audit.md
 */
export async function decodeDayFile(bytes: Uint8Array): Promise<{ meta: DayFileMeta; records: SealedAuditRecord[] }> {
  if (!isParquet(bytes)) throw new DayFileFormatError('not a Parquet file (no PAR1 magic)');
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let parquet: FileMetaData;
  try {
    parquet = parquetMetadata(file);
  } catch (err) {
    throw new DayFileFormatError(`unreadable Parquet footer: ${(err as Error).message}`, { cause: err });
  }
  const meta = metaFromParquet(parquet);
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await parquetReadObjects({ file, compressors: GUNZIP, columns: [...DAY_FILE_COLUMNS] });
  } catch (err) {
    throw new DayFileFormatError(`unreadable rows: ${(err as Error).message}`, { cause: err });
  }
  return { meta, records: rowsToRecords(rows, 0) };
}

/**
 * A day file to read: its whole bytes, or hyparquet's `AsyncBuffer` — `{ byteLength, slice(start,
 * end) => ArrayBuffer | Promise<ArrayBuffer> }` — so a reader over S3 or HTTP range requests
 * fetches only the footer and the row groups it reads.
 *
 * @see docs/audit.md "Archive: day files"
 */
export type DayFileSource = AsyncBuffer | Uint8Array;

/**
 * Read a day file's metadata from its footer alone (no row is read).
 *
 * @param file - {@link DayFileSource}.
 * @returns {@link DayFileMeta} (not verified against the rows).
 * @throws DayFileFormatError when it is not Parquet or not an Aerie day file of a known version.
 * @see docs/audit.md "Archive: day files"
 */
export async function readDayFileMeta(file: DayFileSource): Promise<DayFileMeta> {
  return (await readFooter(asAsyncBuffer(file))).meta;
}

/**
 * Stream a day file's records one Parquet row group at a time (files written by
 * {@link encodeDayFile} hold {@link DAY_FILE_ROW_GROUP_ROWS} rows per group), so a reader holds one
 * group's records — and, over an `AsyncBuffer`, has fetched only the footer and that group's bytes.
 *
 * @param file - {@link DayFileSource}.
 * @returns an async generator of record arrays, in file order; concatenated they equal
 *   {@link decodeDayFile}'s `records` (not verified here).
 * @throws DayFileFormatError (from the first `next()`) when it is not an Aerie day file of a known
 *   version, or (from the group's `next()`) when a group's rows cannot be read or decoded.
 * @example for await (const records of dayFileRecords(bytes)) count += records.length;
 * @see docs/audit.md "Archive: day files"
 */
export async function* dayFileRecords(file: DayFileSource): AsyncGenerator<SealedAuditRecord[], void, undefined> {
  const source = asAsyncBuffer(file);
  const { parquet } = await readFooter(source);
  let rowStart = 0;
  for (const group of parquet.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await parquetReadObjects({ file: source, metadata: parquet, rowStart, rowEnd, compressors: GUNZIP, columns: [...DAY_FILE_COLUMNS] });
    } catch (err) {
      throw new DayFileFormatError(`unreadable rows ${rowStart + 1}..${rowEnd}: ${(err as Error).message}`, { cause: err });
    }
    yield rowsToRecords(rows, rowStart);
    rowStart = rowEnd;
  }
}

const FOOTER_FETCH_BYTES = 64 * 1024;

function asAsyncBuffer(file: DayFileSource): AsyncBuffer {
  if (!(file instanceof Uint8Array)) return file;
  // Slices copy only the range asked for; the whole file is never copied.
  return { byteLength: file.byteLength, slice: (start, end = file.byteLength) => file.buffer.slice(file.byteOffset + start, file.byteOffset + end) as ArrayBuffer };
}

async function readFooter(file: AsyncBuffer): Promise<{ parquet: FileMetaData; meta: DayFileMeta }> {
  let parquet: FileMetaData;
  try {
    // hyparquet guesses the footer is within the last 512 KiB and reads them in one go; a day file's
    // footer is a few KiB (schema, 14 column chunks per row group, checkpoints), and a bigger one
    // costs a second read — cheaper than fetching a third of a row group ahead for every file.
    parquet = await parquetMetadataAsync(file, { initialFetchSize: FOOTER_FETCH_BYTES });
  } catch (err) {
    throw new DayFileFormatError(`unreadable Parquet footer: ${(err as Error).message}`, { cause: err });
  }
  return { parquet, meta: metaFromParquet(parquet) };
}

/** Records of decoded rows; `firstRow` (0-based) numbers the rows in errors. */
function rowsToRecords(rows: Array<Record<string, unknown>>, firstRow: number): SealedAuditRecord[] {
  return rows.map((row, i) => {
    try {
      return rowToRecord(row);
    } catch (err) {
      throw new DayFileFormatError(`row ${firstRow + i + 1}: ${(err as Error).message}`, { cause: err });
    }
  });
}

/** The {@link DayFileMeta} of a Parquet footer; DayFileFormatError when it is not a day file of this version. */
function metaFromParquet(parquet: FileMetaData): DayFileMeta {
  const kv = new Map((parquet.key_value_metadata ?? []).map((e) => [e.key, e.value ?? '']));
  const get = (key: string) => {
    const v = kv.get(`aerie.${key}`);
    if (v === undefined) throw new DayFileFormatError(`metadata aerie.${key} is missing`);
    return v;
  };
  if (get('format') !== DAY_FILE_FORMAT) throw new DayFileFormatError(`aerie.format is ${get('format')}, expected ${DAY_FILE_FORMAT}`);
  if (get('version') !== String(DAY_FILE_VERSION)) throw new DayFileFormatError(`aerie.version ${get('version')} is not supported (expected ${DAY_FILE_VERSION})`);
  const int = (key: string) => {
    const n = Number(get(key));
    if (!Number.isSafeInteger(n) || n < 1) throw new DayFileFormatError(`aerie.${key} must be an integer >= 1`);
    return n;
  };
  let checkpoints: unknown;
  try {
    checkpoints = JSON.parse(get('checkpoints'));
  } catch {
    throw new DayFileFormatError('aerie.checkpoints is not JSON');
  }
  if (!Array.isArray(checkpoints) || checkpoints.some((c) => typeof c !== 'string')) throw new DayFileFormatError('aerie.checkpoints must be a JSON array of strings');
  return {
    orgId: get('orgId'), day: get('day'), firstSeq: int('firstSeq'), lastSeq: int('lastSeq'), prevHash: get('prevHash'), headHash: get('headHash'), checkpoints,
  };
}

function rowToRecord(row: Record<string, unknown>): SealedAuditRecord {
  const str = (k: string) => {
    if (typeof row[k] !== 'string') throw new TypeError(`${k} is not text`);
    return row[k] as string;
  };
  const time = (k: string) => {
    if (!(row[k] instanceof Date)) throw new TypeError(`${k} is not a timestamp`);
    return toAuditTimestamp(row[k] as Date);
  };
  const version = Number(row.hashVersion);
  if (version !== 1 && version !== 2) throw new TypeError(`hashVersion ${String(row.hashVersion)} is unknown`);
  const seq = Number(row.seq);
  return {
    id: str('id'), orgId: str('orgId'), seq, eventType: str('eventType'), occurredAt: time('occurredAt'),
    actor: { type: str('actorType') as SealedAuditRecord['actor']['type'], id: str('actorId') },
    ...(row.appGroupId === null || row.appGroupId === undefined ? {} : { appGroupId: str('appGroupId') }),
    businessData: JSON.parse(str('businessData')),
    sealedAt: time('sealedAt'),
    ...(version === 2 ? { hashVersion: 2 as const } : {}),
    payloadHash: str('payloadHash'), prevHash: str('prevHash'), chainHash: str('chainHash'),
  };
}

/**
 * Why a day file failed, besides the record-level {@link ChainBreakReason}s:
 * - `format` — not a readable Aerie day file ({@link DayFileFormatError});
 * - `metadata_mismatch` — the metadata disagrees with the rows (organization, first/last seq,
 *   row count, prevHash, headHash, a day the last record was not sealed on);
 * - `checkpoint_invalid` — a checkpoint's signature does not verify against the JWKS, or it names
 *   another organization;
 * - `checkpoint_mismatch` — a checkpoint inside the file's range disagrees with its record;
 * - `uncovered_tail` — no verified checkpoint at the file's last seq (unless allowed).
 *
 * @see docs/audit.md
 */
export type DayFileFailureReason = ChainBreakReason | 'format' | 'metadata_mismatch' | 'checkpoint_invalid' | 'checkpoint_mismatch' | 'uncovered_tail';

/**
 * Outcome of {@link verifyDayFile}.
 *
 * Shape: `{ ok, meta? (when readable), records (rows read), checkpoints (embedded), coveredThroughSeq
 * (highest seq a verified checkpoint matched, or null), failure?: { reason, detail, seq?, id?, record? } }`.
 *
 * @see docs/audit.md
 */
export interface DayFileReport {
  ok: boolean;
  meta?: DayFileMeta;
  records: number;
  checkpoints: number;
  coveredThroughSeq: number | null;
  failure?: { reason: DayFileFailureReason; detail: string; seq?: number; id?: string; record?: SealedAuditRecord };
}

/**
 * Verify a day file offline: readable; metadata consistent with the rows (organization, day,
 * first/last seq, row count, prevHash, headHash); every record re-hashed by its own hash version
 * and linked from `prevHash` (the genesis hash for seq 1); every embedded checkpoint signed by a key
 * of `jwks`, of this organization, and matching its record; and a verified checkpoint at the last
 * seq (unless `allowUncoveredTail`). Stops at the first failure.
 *
 * @param bytes - the whole file.
 * @param jwks - the platform audit JWKS.
 * @param options - `allowUncoveredTail`: do not fail for records after the last matched checkpoint.
 * @returns {@link DayFileReport}; never throws for a bad file.
 * @see docs/audit.md
 */
export async function verifyDayFile(bytes: Uint8Array, jwks: JSONWebKeySet, options: { allowUncoveredTail?: boolean } = {}): Promise<DayFileReport> {
  let decoded: Awaited<ReturnType<typeof decodeDayFile>>;
  try {
    decoded = await decodeDayFile(bytes);
  } catch (err) {
    return { ok: false, records: 0, checkpoints: 0, coveredThroughSeq: null, failure: { reason: 'format', detail: (err as Error).message } };
  }
  const { meta, records } = decoded;
  let covered: number | null = null;
  const report = (failure?: DayFileReport['failure']): DayFileReport => ({
    ok: !failure, meta, records: records.length, checkpoints: meta.checkpoints.length, coveredThroughSeq: covered, ...(failure ? { failure } : {}),
  });
  const metaFail = (detail: string) => report({ reason: 'metadata_mismatch', detail });

  let dayStart: number;
  try {
    dayStart = dayStartMs(meta.day);
  } catch (err) {
    return metaFail((err as Error).message);
  }
  if (records.length === 0) return metaFail('the file holds no records');
  const first = records[0];
  const last = records[records.length - 1];
  if (records.length !== meta.lastSeq - meta.firstSeq + 1) return metaFail(`${records.length} rows for seq ${meta.firstSeq}..${meta.lastSeq}`);
  if (first.seq !== meta.firstSeq || last.seq !== meta.lastSeq) return metaFail(`rows hold seq ${first.seq}..${last.seq}, metadata says ${meta.firstSeq}..${meta.lastSeq}`);
  const stranger = records.find((r) => r.orgId !== meta.orgId);
  if (stranger) return metaFail(`record ${stranger.id} belongs to organization ${stranger.orgId}, the file to ${meta.orgId}`);
  if (meta.firstSeq === 1 && meta.prevHash !== GENESIS_HASH) return metaFail('prevHash of a file starting at seq 1 must be the genesis hash');
  // The day's run ends with the last record sealed before the day's end (docs/audit.md), so that record was sealed on the day.
  if (!AUDIT_TIMESTAMP.test(last.sealedAt) || Date.parse(last.sealedAt) < dayStart || Date.parse(last.sealedAt) >= dayStart + DAY_MS) {
    return metaFail(`the last record was sealed at ${last.sealedAt}, not on ${meta.day}`);
  }

  const chain = verifyRecords(records, { startPrevHash: meta.prevHash });
  if (!chain.ok) {
    const b = chain.firstBroken!;
    return report({ reason: b.reason, detail: b.detail, seq: b.seq, id: b.id, record: records.find((r) => r.seq === b.seq) });
  }
  if (last.chainHash !== meta.headHash) return metaFail(`headHash ${meta.headHash}, the last record's chainHash is ${last.chainHash}`);

  for (const jws of meta.checkpoints) {
    let claims: Awaited<ReturnType<typeof verifyCheckpoint>>;
    try {
      claims = await verifyCheckpoint(jws, jwks);
    } catch (err) {
      return report({ reason: 'checkpoint_invalid', detail: (err as Error).message });
    }
    if (claims.orgId !== meta.orgId) return report({ reason: 'checkpoint_invalid', detail: `a checkpoint of organization ${claims.orgId}` });
    if (claims.seq < meta.firstSeq || claims.seq > meta.lastSeq) continue;
    const match = verifyAgainstCheckpoint(records, claims);
    if (!match.ok) {
      return report({
        reason: 'checkpoint_mismatch', seq: match.seq, ...(match.id ? { id: match.id } : {}),
        detail: `checkpoint at seq ${claims.seq}: ${match.reason}; records between seq ${meta.firstSeq} and ${claims.seq} were rewritten`,
        record: records.find((r) => r.seq === match.seq),
      });
    }
    covered = Math.max(covered ?? 0, claims.seq);
  }
  if (!options.allowUncoveredTail && covered !== meta.lastSeq) {
    return report({ reason: 'uncovered_tail', seq: covered === null ? meta.firstSeq : covered + 1, detail: `no verified checkpoint at seq ${meta.lastSeq}: records after seq ${covered ?? meta.firstSeq - 1} are protected by hash links only` });
  }
  return report();
}
