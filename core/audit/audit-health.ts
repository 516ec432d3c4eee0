/**
 * `core.auditHealth`: how far behind the sealer is, and the events it could never seal.
 * @see docs/audit.md "Health and dead letters"
 */
import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { SealerState } from './sealer.ts';

/**
 * The audit chain's health. Shape: `{ sealerLagSeconds, oldestUnsealedAt, deadLetters, sealer }` —
 * `sealerLagSeconds` is the age in seconds (3 decimals) of the oldest event appended and not yet
 * sealed (0 when none), `oldestUnsealedAt` when it was appended (ISO 8601, or null), `deadLetters`
 * how many events sit in `core.audit_dead_letters`, `sealer` this process's {@link SealerState}.
 */
export interface AuditHealth {
  sealerLagSeconds: number;
  oldestUnsealedAt: string | null;
  deadLetters: number;
  sealer: SealerState;
}

/**
 * An event the sealer could not seal. `businessDataJson` is the stored `businessData` as JSON
 * text (cut at 65,536 characters, then `businessDataTruncated` is true) — text rather than a nested
 * value because a poison event may be nested too deep to serialize safely.
 */
export interface DeadLetter {
  position: string;
  id: string;
  orgId: string;
  eventType: string;
  occurredAt: string;
  actor: { type: string; id: string };
  appGroupId: string | null;
  businessDataJson: string;
  businessDataTruncated: boolean;
  enqueuedAt: string;
  reason: string;
  deadAt: string;
}

/** A page of dead letters, oldest first; `nextCursor` is the `after` of the next page, or null. */
export interface DeadLetterPage {
  items: DeadLetter[];
  nextCursor: string | null;
}

/** `core.auditHealth`. */
export interface AuditHealthService {
  /** @returns {@link AuditHealth}; two indexed reads. */
  health(): Promise<AuditHealth>;
  /**
   * Dead letters in outbox-position order.
   * @param query - `limit` 1–200; `after` a position from `nextCursor`; `orgId` to narrow to one organization.
   */
  deadLetters(query: { limit: number; after?: string; orgId?: string }): Promise<DeadLetterPage>;
}

const TEXT_LIMIT = 65_536;

/** {@link AuditHealthService} over the kernel database and this process's sealer. */
export class KernelAuditHealth implements AuditHealthService {
  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    private readonly sealer: { state(): SealerState },
  ) {}

  async health(): Promise<AuditHealth> {
    // The oldest row by position is the oldest appended: one index probe, never a scan.
    const { rows } = await this.knex.raw(
      `select (select enqueued_at from core.audit_outbox order by position limit 1) as oldest,
              (select count(*)::int from core.audit_dead_letters) as dead`,
    );
    const { oldest, dead } = (rows as Array<{ oldest: Date | string | null; dead: number }>)[0];
    const oldestAt = oldest === null ? null : new Date(oldest);
    const lag = oldestAt ? Math.max(0, this.clock.now().getTime() - oldestAt.getTime()) / 1000 : 0;
    return { sealerLagSeconds: Math.round(lag * 1000) / 1000, oldestUnsealedAt: oldestAt?.toISOString() ?? null, deadLetters: Number(dead), sealer: this.sealer.state() };
  }

  async deadLetters(query: { limit: number; after?: string; orgId?: string }): Promise<DeadLetterPage> {
    const q = this.knex('core.audit_dead_letters')
      .select('position', 'id', 'orgId', 'eventType', 'occurredAt', 'actorType', 'actorId', 'appGroupId', 'enqueuedAt', 'reason', 'deadAt')
      .select(this.knex.raw('left(business_data::text, ?) as data', [TEXT_LIMIT + 1]))
      .orderBy('position').limit(query.limit + 1);
    if (query.after) q.where('position', '>', query.after);
    if (query.orgId) q.where('orgId', query.orgId);
    const rows = (await q) as Array<Record<string, any>>;
    const items = rows.slice(0, query.limit).map((r): DeadLetter => ({
      position: String(r.position), id: r.id, orgId: r.orgId, eventType: r.eventType, occurredAt: new Date(r.occurredAt).toISOString(),
      actor: { type: r.actorType, id: r.actorId }, appGroupId: r.appGroupId ?? null,
      businessDataJson: String(r.data).slice(0, TEXT_LIMIT), businessDataTruncated: String(r.data).length > TEXT_LIMIT,
      enqueuedAt: new Date(r.enqueuedAt).toISOString(), reason: r.reason, deadAt: new Date(r.deadAt).toISOString(),
    }));
    return { items, nextCursor: rows.length > query.limit ? items[items.length - 1].position : null };
  }
}
