import type { Knex } from 'knex';
import type { JSONWebKeySet } from 'jose';
import type { SealedAuditRecord } from './chain/index.ts';
import type { AuditActivity, AuditActivityWindow, AuditPulse } from './audit-activity.ts';

/** One stored checkpoint: a signed chain head of one organization. @see docs/audit.md "Checkpoints" */
export interface StoredCheckpoint {
  id: string;
  seq: number;
  kid: string;
  /** Compact JWS over the head (`verifyCheckpoint` in the chain functions checks it). */
  jws: string;
  createdAt: Date;
}

/**
 * A filter over one organization's sealed events, newest first (`occurredAt`, then `seq`).
 * `visibleTo` keeps only the events of one account plus event types under `prefixes`;
 * `excludePrefixes` drops event types under those prefixes; `before` continues after a page.
 */
export interface AuditSearch {
  /** Inclusive bounds on `occurredAt`. */
  from: Date;
  to: Date;
  /** Exact event types; empty or absent means all. */
  eventTypes?: string[];
  /** `accountId` is the actor id of own events, of type `actorType` (default `account`; `machine` for a key id). */
  visibleTo?: { accountId: string; actorType?: string; prefixes: string[] };
  excludePrefixes?: readonly string[];
  /** Only events strictly older than this (`occurredAt`, then `seq`). */
  before?: { occurredAt: Date; seq: number };
  /** Most records to return. */
  limit: number;
}

/**
 * `core.auditLog`: read access to the sealed audit chain the kernel keeps (events, heads,
 * checkpoints, the platform audit keys), for the `audit` plugin's query, verification and export.
 * Records come shaped exactly as they were hashed. Methods throw only on database errors.
 * @see docs/audit.md; docs/audit.md
 */
export interface AuditLog {
  /** An organization's records in `seq` order, `fromSeq`..`toSeq` inclusive, at most `limit`, only of `eventTypes` when given. */
  records(orgId: string, range?: { fromSeq?: number; toSeq?: number; limit?: number; eventTypes?: readonly string[] }): Promise<SealedAuditRecord[]>;
  /** Every organization's chain head: `{ orgId, seq }` (seq of its last sealed record), organizations with a chain only. */
  heads(): Promise<Array<{ orgId: string; seq: number }>>;
  /**
   * An organization's event types since `since`: `sealedCount` sealed (by `sealedAt`), `count` those
   * plus the ones still waiting in the outbox (by `occurredAt`); most frequent first.
   */
  eventTypeCounts(orgId: string, since: Date): Promise<Array<{ eventType: string; count: number; sealedCount: number }>>;
  /** Records whose `sealedAt` lies in `[from, to)`, in `seq` order. */
  sealedBetween(orgId: string, from: Date, to: Date): Promise<SealedAuditRecord[]>;
  /** One record by id (any organization), or undefined (also for a malformed id). */
  record(id: string): Promise<SealedAuditRecord | undefined>;
  /** Records matching {@link AuditSearch}, newest first. */
  search(orgId: string, filter: AuditSearch): Promise<SealedAuditRecord[]>;
  /** `occurredAt` of the organization's oldest record, or undefined when it has none. */
  oldestOccurredAt(orgId: string): Promise<Date | undefined>;
  /** `seq` of the organization's chain head (0 before its first record). */
  headSeq(orgId: string): Promise<number>;
  /** Stored checkpoints with `fromSeq <= seq <= toSeq`, ordered by `seq` then id. */
  checkpoints(orgId: string, range?: { fromSeq?: number; toSeq?: number }): Promise<StoredCheckpoint[]>;
  /** The platform audit JWKS: every audit key ever used, retired ones included. */
  jwks(): Promise<JSONWebKeySet>;
  /** Creates the platform audit key when none exists yet (so the JWKS is never empty). */
  ensureSigningKey(): Promise<void>;
  /** Signs every waiting head of `orgId` now (checkpoints are otherwise signed on an interval). */
  flushCheckpoints(orgId: string): Promise<void>;
  /** Signs `record`'s head as a checkpoint; the caller vouches that the chain up to it is intact. */
  signCheckpoint(record: SealedAuditRecord): Promise<void>;
  /**
   * The highest `seq` of the organization's records sealed before `at` (`sealedAt < at`), 0 when none:
   * the boundaries of a day file's run (docs/audit.md "Archive: day files").
   */
  lastSeqSealedBefore(orgId: string, at: Date): Promise<number>;
  /**
   * Every (organization, UTC day of `sealedAt`) with a record sealed in `[from, to)`, ordered by
   * organization then day; `day` is `YYYY-MM-DD`.
   */
  sealedDays(from: Date, to: Date): Promise<Array<{ orgId: string; day: string }>>;
  /**
   * Deletes the organization's records with `fromSeq <= seq <= throughSeq` from `core.audit_events`
   * inside `trx`, and answers how many were deleted. Only for retention enforcement: the caller has
   * archived and verified those records and records the purge horizon in the same transaction
   * (docs/audit.md "Retention"). Heads and checkpoints are kept.
   */
  purgeRange(trx: Knex.Transaction, orgId: string, fromSeq: number, throughSeq: number): Promise<number>;
  /** Per-day, per-type and per-actor counts of a window, aggregated in SQL (the audit plugin's `GET /stats`). */
  activity(orgId: string, window: AuditActivityWindow): Promise<AuditActivity>;
  /** Today's and the last 24 hours' counts, the chain head and the outbox backlog (`GET /stats/quick`). */
  pulse(orgId: string, at: { now: Date; todayStart: Date; excludePrefixes?: readonly string[]; backlogCap: number }): Promise<AuditPulse>;
}
