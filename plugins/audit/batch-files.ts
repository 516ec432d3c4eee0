import { hash } from 'node:crypto';
import type { Logger } from 'pino';
import { ChainFollower, formatExportFile, type AuditLog, type BlobStore, type Clock, type Database, type EventBus } from '../../core/index.ts';
import { coveringCheckpoints } from './export-day.ts';
import { readPurgeHorizon } from './purge-horizon.ts';

/** Records a batch file holds at most. @see docs/audit.md "Archive: batch files" */
export const BATCH_MAX_RECORDS = 10_000;
/** A run of fewer records waits to grow… */
export const BATCH_MIN_RECORDS = 1_000;
/** …until its first record was sealed this long ago (ms): 5 minutes. */
export const BATCH_MAX_AGE_MS = 5 * 60_000;
/** Content type batch files are stored (and downloaded) with. */
export const BATCH_CONTENT_TYPE = 'application/x-ndjson';
const MANIFEST = 'audit.batch_files';

/**
 * One row of the batch-file manifest (`audit.batch_files`). Shape: `{ orgId, firstSeq, lastSeq,
 * blobKey, sha256 (hex of the stored file), byteSize (bytes), rowCount, firstSealedAt, lastSealedAt,
 * createdAt }`.
 * @see docs/audit.md "Archive: batch files"
 */
export interface BatchFileRow {
  orgId: string;
  firstSeq: number;
  lastSeq: number;
  blobKey: string;
  sha256: string;
  byteSize: number;
  rowCount: number;
  firstSealedAt: Date;
  lastSealedAt: Date;
  createdAt: Date;
}

/** The blob key of a batch file: `org/<orgId>/audit/batches/<firstSeq, 12 digits>-<lastSeq>.<first 16 hex of its SHA-256>.jsonl`. */
export function batchFileKey(orgId: string, firstSeq: number, lastSeq: number, sha256: string): string {
  return `org/${orgId}/audit/batches/${String(firstSeq).padStart(12, '0')}-${lastSeq}.${sha256.slice(0, 16)}.jsonl`;
}

/**
 * The raw archive: every organization's sealed records, soon after they are sealed, as batch files
 * in `core.blob` — runs of consecutive records (at most {@link BATCH_MAX_RECORDS}; a shorter run
 * waits until it has {@link BATCH_MIN_RECORDS} or its first record is {@link BATCH_MAX_AGE_MS}
 * old) in the JSONL export format with the signed checkpoints covering them, so each verifies
 * offline with `aerie audit verify-file`. A file is written once under a content-addressed key,
 * read back and checked against its SHA-256, then recorded in the manifest, whose highest `lastSeq`
 * is the organization's cursor. Follows the chains with the kernel's `ChainFollower`; one
 * organization's failure is logged and retried on the next poll.
 * @see docs/audit.md "Archive: batch files"
 */
export class BatchArchive {
  private readonly follower: ChainFollower<{ orgId: string; seq: number }>;

  constructor(private readonly deps: { db: Database; blob: BlobStore; auditLog: AuditLog; clock: Clock; logger: Logger; pollMs?: number }) {
    this.follower = new ChainFollower({
      auditLog: deps.auditLog, logger: deps.logger, pollMs: deps.pollMs ?? 60_000, what: 'audit batch archive',
      select: async (heads) => heads, work: async ({ orgId }) => void (await this.archiveOrg(orgId)),
    });
  }

  /** Starts following the sealed chains (a poll every `pollMs`, default 60 s). */
  start(events: EventBus): void {
    this.follower.start(events);
  }

  /** Stops; waits for the running pass. */
  async stop(): Promise<void> {
    await this.follower.stop();
  }

  /** Archives every organization's due runs now, then resolves (tests, commands). @returns the files written. */
  async drain(): Promise<BatchFileRow[]> {
    await this.follower.idle();
    const written: BatchFileRow[] = [];
    for (const { orgId } of await this.deps.auditLog.heads()) written.push(...await this.archiveOrg(orgId));
    return written;
  }

  /** The batch file holding `seq`, or undefined. */
  async batchFileAt(orgId: string, seq: number): Promise<BatchFileRow | undefined> {
    const row = await this.deps.db.knex(MANIFEST).where({ orgId }).andWhere('firstSeq', '<=', seq).andWhere('lastSeq', '>=', seq).first();
    return row ? toRow(row) : undefined;
  }

  /** Writes the organization's due batch files, oldest first. */
  private async archiveOrg(orgId: string): Promise<BatchFileRow[]> {
    const { db, auditLog, clock } = this.deps;
    const written: BatchFileRow[] = [];
    for (;;) {
      const last = await db.knex(MANIFEST).where({ orgId }).max({ seq: 'lastSeq' }).first();
      const purged = (await readPurgeHorizon(db.knex, orgId))?.throughSeq ?? 0;
      const from = Math.max(Number(last?.seq ?? 0), purged) + 1;
      // A short run is read whole only once it is due: its first record tells its age.
      const [first] = await auditLog.records(orgId, { fromSeq: from, limit: 1 });
      if (!first) return written;
      const head = await auditLog.headSeq(orgId);
      if (head - from + 1 < BATCH_MIN_RECORDS && clock.now().getTime() - Date.parse(first.sealedAt) < BATCH_MAX_AGE_MS) return written;
      const records = await auditLog.records(orgId, { fromSeq: from, toSeq: head, limit: BATCH_MAX_RECORDS });
      const checkpoints = await coveringCheckpoints(auditLog, orgId, records, { alsoEvery: BATCH_MAX_RECORDS });
      if (!checkpoints.covered) return written; // the checkpointer signs the head shortly; the next pass writes it
      const row = await this.writeBatch(orgId, records, checkpoints.jws);
      if (row) written.push(row); // else another runner recorded a run from there first: read the cursor again
    }
  }

  private async writeBatch(orgId: string, records: Awaited<ReturnType<AuditLog['records']>>, checkpoints: string[]): Promise<BatchFileRow | undefined> {
    const { db, blob, clock } = this.deps;
    const text = Buffer.from(formatExportFile(records, checkpoints));
    const sha256 = hash('sha256', text, 'hex');
    const firstSeq = records[0].seq;
    const lastSeq = records.at(-1)!.seq;
    const key = batchFileKey(orgId, firstSeq, lastSeq, sha256);
    const stored = await blob.put(key, text, { maxBytes: text.length, contentType: BATCH_CONTENT_TYPE });
    try {
      if (stored.sha256 !== sha256) throw new Error(`audit batch file ${key}: stored SHA-256 ${stored.sha256}, written ${sha256}`);
      const row = {
        orgId, firstSeq, lastSeq, blobKey: key, sha256, byteSize: text.length, rowCount: records.length,
        firstSealedAt: new Date(records[0].sealedAt), lastSealedAt: new Date(records.at(-1)!.sealedAt), createdAt: clock.now(),
      };
      const inserted = await db.knex(MANIFEST).insert(row).onConflict(['orgId', 'firstSeq']).ignore().returning('firstSeq');
      if (inserted.length > 0) return row;
      const winner = await this.batchFileAt(orgId, firstSeq);
      if (winner?.blobKey !== key) await blob.delete(key);
      return undefined;
    } catch (err) {
      const recorded = await this.batchFileAt(orgId, firstSeq).catch(() => ({ blobKey: key }));
      if (recorded?.blobKey !== key) await blob.delete(key).catch((e: unknown) => this.deps.logger.warn({ err: e, key }, 'could not remove an unrecorded audit batch file'));
      throw err;
    }
  }
}

function toRow(r: Record<string, any>): BatchFileRow {
  return {
    orgId: r.orgId, firstSeq: Number(r.firstSeq), lastSeq: Number(r.lastSeq), blobKey: r.blobKey, sha256: r.sha256, byteSize: Number(r.byteSize),
    rowCount: Number(r.rowCount), firstSealedAt: new Date(r.firstSealedAt), lastSealedAt: new Date(r.lastSealedAt), createdAt: new Date(r.createdAt),
  };
}
