import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  DAY_MS, dayRecordsNdjson, dayStartMs, utcDay, verifyDayFile, type AuditLog, type BlobStore, type Clock, type CompactDayResult, type CompactDayTask, type Database,
} from '../../core/index.ts';
import { coveringCheckpoints } from './export-day.ts';
import { readPurgeHorizon } from './purge-horizon.ts';

/** Days back the nightly run looks for days without a day file. @see docs/audit.md */
export const BACKFILL_DAYS = 90;
/**
 * A UTC day is complete — and may be compacted — this long after its end: a sealing transaction
 * reads its clock before it commits, so a record sealed at 23:59:59.999 may become visible a moment
 * after midnight. @see docs/audit.md
 */
export const COMPLETE_AFTER_MS = 5 * 60_000;
/** Largest day file stored, in bytes (1 GiB). @see docs/audit.md */
export const MAX_DAY_FILE_BYTES = 1 << 30;
/** Content type day files are stored (and downloaded) with. */
export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet';
const MANIFEST = 'audit.day_files';

/**
 * One row of the day-file manifest (`audit.day_files`).
 *
 * Shape: `{ orgId, day: 'YYYY-MM-DD', blobKey, firstSeq, lastSeq, prevHash, headHash, rowCount,
 * byteSize (bytes), sha256 (hex of the stored file), createdAt }`.
 * @see docs/audit.md "Archive: day files"
 */
export interface DayFileRow {
  orgId: string;
  day: string;
  blobKey: string;
  firstSeq: number;
  lastSeq: number;
  prevHash: string;
  headHash: string;
  rowCount: number;
  byteSize: number;
  sha256: string;
  createdAt: Date;
}

/**
 * What one day's compaction did: `written` (a file and its manifest row), `exists` (a manifest row
 * was there, or another runner wrote it first), `empty` (no record belongs to the day), `waiting`
 * (no signed checkpoint can cover the day's last record yet; retried on the next run).
 */
export type CompactOutcome = 'written' | 'exists' | 'empty' | 'waiting';

/** Runs the compaction task: `compactDayFile` on core.workers, or another function of the same contract. */
export type CompactFn = (task: CompactDayTask) => Promise<CompactDayResult>;

/**
 * Outcome of {@link DayFileArchive.compactPending}: the days written, those waiting for a
 * checkpoint, and the failures (`error` is the message; the organization's later days were not tried).
 */
export interface CompactionReport {
  written: Array<{ orgId: string; day: string }>;
  waiting: Array<{ orgId: string; day: string }>;
  failed: Array<{ orgId: string; day: string; error: string }>;
}

/**
 * The blob key of a day file: `org/<orgId>/audit/days/<YYYY-MM-DD>.<first 16 hex of its SHA-256>.parquet`.
 * The content hash in the key makes every key written once: a rerun after a crash writes the same
 * bytes under the same key, and two runners that produced different files never overwrite each other.
 * @see docs/audit.md
 */
export function dayFileKey(orgId: string, day: string, sha256: string): string {
  return `org/${orgId}/audit/days/${day}.${sha256.slice(0, 16)}.parquet`;
}

/**
 * The audit archive: compacts one organization's sealed records of one UTC day into a Parquet day
 * file in `core.blob` (written once), verifies the stored bytes, and records them in the manifest.
 *
 * A day's run is cut by `sealedAt`: day D holds the records with `seq` in (the highest seq sealed
 * before D's start, the highest seq sealed before D's end] — a contiguous seq range whatever the
 * sealers' clocks did at midnight, and consecutive days partition the chain.
 * @see docs/audit.md "Archive: day files"
 */
export class DayFileArchive {
  constructor(
    private readonly deps: { db: Database; blob: BlobStore; auditLog: AuditLog; clock: Clock; logger: Logger; compact: CompactFn },
  ) {}

  /** The manifest row of one day, or undefined. */
  async dayFile(orgId: string, day: string): Promise<DayFileRow | undefined> {
    const row = await this.deps.db.knex(MANIFEST).where({ orgId, day }).first();
    return row ? toRow(row) : undefined;
  }

  /** The manifest rows of `fromDay..toDay` (inclusive, `YYYY-MM-DD`), oldest first. */
  async dayFiles(orgId: string, fromDay: string, toDay: string): Promise<DayFileRow[]> {
    const rows = await this.deps.db.knex(MANIFEST).where({ orgId }).andWhere('day', '>=', fromDay).andWhere('day', '<=', toDay).orderBy('day');
    return rows.map(toRow);
  }

  /** Every organization's manifest rows from `fromDay` (`YYYY-MM-DD`, inclusive) on, by organization then day. */
  async dayFilesSince(fromDay: string): Promise<DayFileRow[]> {
    const rows = await this.deps.db.knex(MANIFEST).where('day', '>=', fromDay).orderBy(['orgId', 'day']);
    return rows.map(toRow);
  }

  /**
   * The stored bytes of a day file, checked against its manifest row's SHA-256.
   * @throws Error when the object is missing or its SHA-256 differs from the manifest's (the file
   *   was altered in the blob store).
   */
  async readFile(row: Pick<DayFileRow, 'blobKey' | 'sha256'>): Promise<Buffer> {
    const bytes = await this.readBlob(row.blobKey);
    const sha256 = hash('sha256', bytes, 'hex');
    if (sha256 !== row.sha256) throw new Error(`audit day file ${row.blobKey}: SHA-256 ${sha256} differs from the manifest's ${row.sha256}`);
    return bytes;
  }

  /**
   * Compacts one organization's day: reads the run, collects the signed checkpoints covering it,
   * runs the compaction task, stores the file under its content-addressed key, reads it back and
   * verifies it (SHA-256, every record re-hashed and linked, metadata, checkpoint signatures; and
   * its prevHash against the previous day file's head), and only then inserts the manifest row.
   * Nothing is recorded when any step fails; the file stored before the failure is removed.
   * @param orgId - organization id.
   * @param day - `YYYY-MM-DD` (UTC), a completed day.
   * @param compact - the compaction task (default: `compactDayFile` on core.workers).
   * @returns {@link CompactOutcome}.
   * @throws Error when the records do not verify, the task fails, or the blob store fails.
   */
  async compactDay(orgId: string, day: string, compact: CompactFn = this.deps.compact): Promise<CompactOutcome> {
    const { auditLog: log, blob, db, clock } = this.deps;
    if (await this.dayFile(orgId, day)) return 'exists';
    const start = dayStartMs(day);
    // Rows purged by retention (docs/audit.md "Retention") were sealed before any day still to compact.
    const purged = (await readPurgeHorizon(db.knex, orgId))?.throughSeq ?? 0;
    const lo = Math.max(purged, await log.lastSeqSealedBefore(orgId, new Date(start)));
    const hi = Math.max(purged, await log.lastSeqSealedBefore(orgId, new Date(start + DAY_MS)));
    if (hi <= lo) return 'empty';
    const records = await log.records(orgId, { fromSeq: lo + 1, toSeq: hi });
    if (records.length !== hi - lo) throw new Error(`audit day ${orgId} ${day}: read ${records.length} records for seq ${lo + 1}..${hi}`);
    const checkpoints = await coveringCheckpoints(log, orgId, records);
    if (!checkpoints.covered) return 'waiting';

    const file = await compact({ records: dayRecordsNdjson(records), day, checkpoints: checkpoints.jws });
    const key = dayFileKey(orgId, day, file.sha256);
    const stored = await blob.put(key, Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), { maxBytes: MAX_DAY_FILE_BYTES, contentType: PARQUET_CONTENT_TYPE });
    try {
      const back = await this.readBlob(key);
      const sha256 = hash('sha256', back, 'hex');
      if (stored.sha256 !== file.sha256 || sha256 !== file.sha256) throw new Error(`audit day ${orgId} ${day}: stored SHA-256 ${sha256}, compacted ${file.sha256}`);
      const report = await verifyDayFile(back, await log.jwks());
      if (!report.ok) throw new Error(`audit day ${orgId} ${day}: the stored file does not verify: ${report.failure?.reason} ${report.failure?.detail}`);
      const meta = report.meta!;
      if (meta.orgId !== orgId || meta.day !== day || meta.firstSeq !== lo + 1 || meta.lastSeq !== hi) throw new Error(`audit day ${orgId} ${day}: the stored file's metadata names another run`);
      const previous = lo > 0 ? await db.knex(MANIFEST).where({ orgId, lastSeq: lo }).first() : undefined;
      if (previous && previous.headHash !== meta.prevHash) throw new Error(`audit day ${orgId} ${day}: prevHash ${meta.prevHash} does not continue day ${previous.day} (head ${previous.headHash})`);
      const inserted = await db.knex(MANIFEST)
        .insert({
          orgId, day, blobKey: key, firstSeq: lo + 1, lastSeq: hi, prevHash: meta.prevHash, headHash: meta.headHash, rowCount: records.length,
          byteSize: back.length, sha256, createdAt: clock.now(),
        })
        .onConflict(['orgId', 'day']).ignore().returning('day');
      if (inserted.length > 0) return 'written';
      // Another runner recorded the day first: keep its file, drop ours unless it is the same object.
      const winner = await this.dayFile(orgId, day);
      if (winner?.blobKey !== key) await blob.delete(key);
      return 'exists';
    } catch (err) {
      // Remove what we stored, unless a manifest row (another runner's, same bytes) points at it —
      // or we cannot tell: an unreferenced object is harmless, a missing referenced one is not.
      const recorded = await this.dayFile(orgId, day).catch(() => ({ blobKey: key }));
      if (recorded?.blobKey !== key) await blob.delete(key).catch((e: unknown) => this.deps.logger.warn({ err: e, key }, 'could not remove an unrecorded audit day file'));
      throw err;
    }
  }

  /**
   * The nightly run: every organization's completed days (the last {@link BACKFILL_DAYS}) that hold
   * sealed records and have no day file, oldest first. A failing day is logged and ends that
   * organization's run (its later days wait for the next run); other organizations go on.
   * @param options - `compact`: the compaction task (default: `compactDayFile` on core.workers).
   * @returns {@link CompactionReport}.
   */
  async compactPending(options: { compact?: CompactFn } = {}): Promise<CompactionReport> {
    const now = this.deps.clock.now().getTime();
    const until = dayStartMs(utcDay(now - COMPLETE_AFTER_MS));
    const from = until - BACKFILL_DAYS * DAY_MS;
    const candidates = await this.deps.auditLog.sealedDays(new Date(from), new Date(until));
    const done = new Set(
      (await this.deps.db.knex(MANIFEST).where('day', '>=', utcDay(from)).select('orgId', 'day')).map((r: { orgId: string; day: string }) => `${r.orgId}/${r.day}`),
    );
    const report: CompactionReport = { written: [], waiting: [], failed: [] };
    let failedOrg: string | undefined;
    for (const { orgId, day } of candidates) {
      if (done.has(`${orgId}/${day}`) || orgId === failedOrg) continue;
      try {
        const outcome = await this.compactDay(orgId, day, options.compact);
        if (outcome === 'written') report.written.push({ orgId, day });
        if (outcome === 'waiting') {
          report.waiting.push({ orgId, day });
          this.deps.logger.warn({ orgId, day }, 'audit day file waits: no signed checkpoint covers the day\'s last record yet');
        }
      } catch (err) {
        failedOrg = orgId;
        report.failed.push({ orgId, day, error: (err as Error).message });
        this.deps.logger.error({ err, orgId, day }, 'audit day file compaction failed; the organization\'s later days wait for the next run');
      }
    }
    return report;
  }

  private async readBlob(key: string): Promise<Buffer> {
    const object = await this.deps.blob.get(key);
    if (!object) throw new Error(`audit day file ${key} is missing right after it was stored`);
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
}

function toRow(r: Record<string, any>): DayFileRow {
  return {
    orgId: r.orgId, day: r.day, blobKey: r.blobKey, firstSeq: Number(r.firstSeq), lastSeq: Number(r.lastSeq), prevHash: r.prevHash, headHash: r.headHash,
    rowCount: Number(r.rowCount), byteSize: Number(r.byteSize), sha256: r.sha256, createdAt: new Date(r.createdAt),
  };
}
