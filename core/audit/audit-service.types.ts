import type { Knex } from 'knex';

/** Who caused an audit event. @see docs/audit.md */
export interface AuditActorRef {
  type: 'account' | 'apiKey' | 'machine' | 'agent' | 'system';
  /** The principal's id; `system` for background work. */
  id: string;
}

/** An event to record; `actor` defaults from the current request (system outside requests). */
export interface AuditEventInput {
  orgId: string;
  eventType: string;
  actor?: AuditActorRef;
  appGroupId?: string;
  /** Event details; `_humanSeal` is added by the kernel when the request passed a seal. */
  businessData?: Record<string, unknown>;
  occurredAt?: Date;
}

/** Options of an append. */
export interface AppendOptions {
  /** A tighter limit on each event's `businessData`, in bytes of canonical JSON (default 65,536). */
  maxBusinessDataBytes?: number;
}

/**
 * What a sealed batch ingestion answers once committed.
 * Shape: `{ ids: string[] (UUIDs, in request order), firstSeq, lastSeq (the batch's chain
 * positions, inclusive), chainHash (of the record at lastSeq, 64 hex), sealedAt (ISO 8601 ms) }`.
 */
export interface IngestResult {
  ids: string[];
  firstSeq: number;
  lastSeq: number;
  chainHash: string;
  sealedAt: string;
  /** True when an earlier request with the same idempotency key sealed these events (nothing new was written). */
  replayed: boolean;
}

/** Options of an ingestion: {@link AppendOptions} and an idempotency key. */
export interface IngestOptions extends AppendOptions {
  /**
   * The client's idempotency key (1–255 visible ASCII characters): a second ingestion with the same
   * key for the same organization within 24 hours answers the first one's result (`replayed`)
   * instead of sealing again, when its events are the same; with other events it is refused.
   */
  idempotencyKey?: string;
}

/**
 * `core.audit`: appends events to the audit outbox inside the caller's transaction, so a committed
 * change always has its event and a rolled-back one never does; the sealer chains them later.
 */
export interface AuditService {
  /**
   * Appends one event in `trx`. @returns the event id (UUID).
   * @throws AerieError 400 `VALIDATION_FAILED` with `field` (e.g. `businessData.a[2]`) when the
   *   event could not be sealed: see docs/audit.md "Limits of an event". Nothing is written.
   */
  append(trx: Knex.Transaction | Knex, event: AuditEventInput, options?: AppendOptions): Promise<{ id: string }>;
  /**
   * Appends many events with one statement, all or none.
   * @throws AerieError 400 `VALIDATION_FAILED` with `field` `events[i].…` for the first event that
   *   could not be sealed; nothing is written.
   */
  appendMany(trx: Knex.Transaction | Knex, events: AuditEventInput[], options?: AppendOptions): Promise<{ ids: string[] }>;
  /**
   * Seals a batch of events with no business transaction to join directly on `orgId`'s chain
   * (no outbox): validated as {@link appendMany}, hashed before the head lock, written in one
   * transaction. The answer means sealed. See docs/audit.md "Ingestion modes".
   * @throws AerieError 400 `VALIDATION_FAILED` with `field` `events[i].…`; 422
   *   `IDEMPOTENCY_KEY_REUSED` when the key sealed other events within 24 hours; nothing written.
   */
  ingest(orgId: string, events: Array<Omit<AuditEventInput, 'orgId'>>, options?: IngestOptions): Promise<IngestResult>;
}
