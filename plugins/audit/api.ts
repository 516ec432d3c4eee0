/**
 * The audit plugin's public API: the `audit.query` service ref and the shapes it answers.
 * (A plugin imports only another plugin's `api.ts`, never its other files.)
 */
import type { JSONWebKeySet } from 'jose';
import { createServiceRef, type SealedAuditRecord } from '../../core/index.ts';
import type { AuditVisibility } from './visibility.ts';
import type { StoredChainReport, StoredRecordVerification } from './stored-verification.ts';
import type { CompactionReport, CompactOutcome, DayFileRow } from './day-files.ts';
import type { BatchFileRow } from './batch-files.ts';
import type { PurgeHorizon } from './purge-horizon.ts';
import type { CohortRow, RetentionOrgReport } from './retention-job.ts';

export type { AuditVisibility } from './visibility.ts';
export { OWNER_ONLY_PREFIXES } from './visibility.ts';
export type { CheckpointStatus, StoredChainReport, StoredRecordVerification } from './stored-verification.ts';
export type { PurgeHorizon } from './purge-horizon.ts';
export type { CohortRow, RetentionOrgReport } from './retention-job.ts';
export type { CompactionReport, CompactOutcome, DayFileRow } from './day-files.ts';
export type { BatchFileRow } from './batch-files.ts';

/** A sealed event as the query API shows it (no hashes). @see docs/audit.md */
export interface AuditEventItem {
  id: string;
  seq: number;
  eventType: string;
  occurredAt: string;
  actor: { type: string; id: string };
  appGroupId: string | null;
  businessData: Record<string, unknown>;
  sealedAt: string;
}

/** One page of a query, newest first; `nextCursor` continues it (null on the last page). */
export interface AuditEventPage {
  items: AuditEventItem[];
  nextCursor: string | null;
}

/** What {@link AuditQueryService.page} reads: `occurredAt` in `[from, to]`, optional exact types. */
export interface AuditPageRequest {
  from: Date;
  to: Date;
  eventTypes: string[];
  /** A `nextCursor` this server issued. */
  cursor?: string;
  limit: number;
}

/**
 * `audit.query`: the read side of the sealed audit chain — query pages, single records, stored
 * chain verification and day exports. Reads go through the kernel's `core.auditLog`.
 * @see docs/audit.md; docs/audit.md
 */
export interface AuditQueryService {
  /**
   * One page of an organization's events visible under `visibility`.
   * @throws AerieError 400 `VALIDATION_FAILED` (`field: cursor`) for a cursor this server did not issue.
   */
  page(orgId: string, visibility: AuditVisibility, request: AuditPageRequest): Promise<AuditEventPage>;
  /** One sealed record of `orgId` by id, or undefined. */
  event(orgId: string, id: string): Promise<SealedAuditRecord | undefined>;
  /** One sealed record by id (any organization), or undefined. */
  record(logId: string): Promise<SealedAuditRecord | undefined>;
  /** `occurredAt` of the organization's oldest event (undefined when none). */
  oldestOccurredAt(orgId: string): Promise<Date | undefined>;
  /** Verifies one stored record: its hashes, link and nearest checkpoint. */
  verifyRecord(record: SealedAuditRecord): Promise<StoredRecordVerification>;
  /**
   * Walks an organization's stored chain from `fromSeq` (default 1) against `jwks` (default: this
   * server's); after a retention purge it starts at the purge horizon (docs/audit.md "Retention").
   */
  verifyChain(orgId: string, options?: { fromSeq?: number; jwks?: JSONWebKeySet }): Promise<StoredChainReport>;
  /** One UTC day (`YYYY-MM-DD`) as a JSONL export file. @throws RangeError for a malformed day. */
  exportDay(orgId: string, day: string): Promise<string>;
  /** The platform audit JWKS. */
  jwks(): Promise<JSONWebKeySet>;
  /** The organization's purge horizon (hot rows purged through it), or undefined. @see docs/audit.md "Retention" */
  purgeHorizon(orgId: string): Promise<PurgeHorizon | undefined>;
}

/**
 * The audit archive: Parquet day files in `core.blob` and their manifest. Days are `YYYY-MM-DD` (UTC).
 * @see docs/audit.md "Archive: day files"
 */
export interface DayFiles {
  /** The manifest row of one organization's day, or undefined when it has no day file. */
  dayFile(orgId: string, day: string): Promise<DayFileRow | undefined>;
  /** An organization's day files from `fromDay` through `toDay`, oldest first. */
  dayFiles(orgId: string, fromDay: string, toDay: string): Promise<DayFileRow[]>;
  /** Every organization's day files from `fromDay` on (the rollups' input). */
  dayFilesSince(fromDay: string): Promise<DayFileRow[]>;
  /** A day file's bytes. @throws Error when the stored file is missing or its SHA-256 differs from the manifest */
  readFile(row: Pick<DayFileRow, 'blobKey' | 'sha256'>): Promise<Buffer>;
  /** Compacts one completed day of an organization into its day file (verified before it is listed). */
  compactDay(orgId: string, day: string): Promise<CompactOutcome>;
  /** Compacts every organization's completed days without a day file (the nightly schedule's work). */
  compactPending(): Promise<CompactionReport>;
}

/** The raw archive: batch files written as the chains grow. @see docs/audit.md "Archive: batch files" */
export interface BatchFiles {
  /** Writes every batch that is complete now and answers the new files (tests, shutdown). */
  drain(): Promise<BatchFileRow[]>;
  /** The batch file holding record `seq` of an organization's chain, or undefined. */
  batchFileAt(orgId: string, seq: number): Promise<BatchFileRow | undefined>;
  /** Stops following the chains (waits for the file being written). */
  stop(): Promise<void>;
}

/** Retention: notices to Owners, then the purge of archived days from the hot table. @see docs/audit.md "Retention" */
export interface AuditRetention {
  /** Enforces every organization's retention; an organization that failed is listed, the others go on. */
  runAll(): Promise<{ reports: RetentionOrgReport[]; failed: Array<{ orgId: string; error: string }> }>;
  /** Enforces one organization's retention (notices due, then the purge of a cohort whose time came). */
  enforce(orgId: string): Promise<RetentionOrgReport>;
  /** The organization's open notice cohort, or undefined. */
  openCohort(orgId: string): Promise<CohortRow | undefined>;
}

export const auditRefs = {
  query: createServiceRef<AuditQueryService>('audit.query'),
  /** The audit archive: Parquet day files in `core.blob` and their manifest (docs/audit.md "Archive: day files"). */
  dayFiles: createServiceRef<DayFiles>('audit.dayFiles'),
  /** The raw archive: batch files written as the chains grow (docs/audit.md "Archive: batch files"). */
  batchFiles: createServiceRef<BatchFiles>('audit.batchFiles'),
  /** Retention enforcement: notices to Owners and the purge of archived days (docs/audit.md "Retention"). */
  retention: createServiceRef<AuditRetention>('audit.retention'),
};

/** Nightly schedules (compaction, retention; other plugins' nightly audit work, such as the analytics rollups). */
export { NIGHTLY, scheduleNightly } from './nightly-job.ts';
