import type { Knex } from 'knex';

/** Who caused an audit event. @see spec 01 "Audit" */
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

/**
 * `core.audit`: appends events to the audit outbox inside the caller's transaction, so a committed
 * change always has its event and a rolled-back one never does; the sealer chains them later.
 */
export interface AuditService {
  /** Appends one event in `trx`. @returns the event id (UUID). */
  append(trx: Knex.Transaction | Knex, event: AuditEventInput): Promise<{ id: string }>;
  /** Appends many events with one statement. */
  appendMany(trx: Knex.Transaction | Knex, events: AuditEventInput[]): Promise<{ ids: string[] }>;
}
