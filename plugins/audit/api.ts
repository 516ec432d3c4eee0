/**
 * The audit plugin's public API: the `audit.query` service ref and the shapes it answers.
 * (A plugin imports only another plugin's `api.ts`, never its other files.)
 */
import type { JSONWebKeySet } from 'jose';
import { createServiceRef, type SealedAuditRecord } from '../../core/index.ts';
import type { AuditVisibility } from './visibility.ts';
import type { StoredChainReport, StoredRecordVerification } from './stored-verification.ts';
import type { DayFileArchive } from './day-files.ts';
import type { BatchArchive } from './batch-files.ts';
import type { PurgeHorizon } from './purge-horizon.ts';
import type { RetentionEnforcer } from './retention-job.ts';

export type { AuditVisibility } from './visibility.ts';
export { OWNER_ONLY_PREFIXES } from './visibility.ts';
export type { CheckpointStatus, StoredChainReport, StoredRecordVerification } from './stored-verification.ts';
export type { PurgeHorizon } from './purge-horizon.ts';
export type { RetentionEnforcer, RetentionOrgReport } from './retention-job.ts';
export type { CompactionReport, CompactOutcome, DayFileArchive, DayFileRow } from './day-files.ts';
export type { BatchArchive, BatchFileRow } from './batch-files.ts';

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

export const auditRefs = {
  query: createServiceRef<AuditQueryService>('audit.query'),
  /** The audit archive: Parquet day files in `core.blob` and their manifest (docs/audit.md "Archive: day files"). */
  dayFiles: createServiceRef<DayFileArchive>('audit.dayFiles'),
  /** The raw archive: batch files written as the chains grow (docs/audit.md "Archive: batch files"). */
  batchFiles: createServiceRef<BatchArchive>('audit.batchFiles'),
  /** Retention enforcement: notices to Owners and the purge of archived days (docs/audit.md "Retention"). */
  retention: createServiceRef<RetentionEnforcer>('audit.retention'),
};


/** Nightly jobs claimed once per UTC day (compaction, retention; other plugins' nightly audit work). */
export { NIGHTLY, scheduleNightly } from './nightly-job.ts';
