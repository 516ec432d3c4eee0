import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { providerOf } from './day-rollup.ts';
import { AUDIT_SEALED_EVENT, type AuditLog, type AuditSealedPayload, type Clock, type Database, type EventBus, type SealedAuditRecord } from '../../core/index.ts';

/** Event types the hot end-user store projects, and the kind of row each becomes. @see docs/api/audit-analytics.md */
export const PROJECTED_TYPES = { 'org.end_user.signed_in': 'login', 'org.end_user.sign_in_failed': 'failure', 'org.end_user.created': 'signup' } as const;
/** Sealed records read per statement. */
const PAGE = 1000;

type Kind = (typeof PROJECTED_TYPES)[keyof typeof PROJECTED_TYPES];

/**
 * The hot end-user store's projector: copies end users' sign-ins, failed attempts and self-signups
 * from each organization's sealed chain (read through `core.auditLog`) into
 * `analytics.end_user_activity`, behind a cursor per organization, so the figures outlive the
 * audit table's retention purge (the store keeps 181 days). Runs when this process seals a chain
 * (`core.audit.sealed`) and every `pollMs` for chains other processes sealed. One organization's
 * failure is logged and retried on the next pass; the others go on.
 * @see docs/api/audit-analytics.md "Hot end-user store"
 */
export class ActivityProjector {
  private timer?: NodeJS.Timeout;
  private subscription?: Subscription;
  private running?: Promise<void>;
  private due: Set<string> | 'all' = 'all';
  private stopped = false;

  constructor(private readonly db: Database, private readonly auditLog: AuditLog, private readonly clock: Clock, private readonly logger: Logger, private readonly pollMs = 10_000) {}

  /** Starts polling and reacting to chains this process sealed. */
  start(events: EventBus): void {
    this.subscription = events.on(AUDIT_SEALED_EVENT).subscribe((e) => this.wake((e.payload as AuditSealedPayload).heads.map((h) => h.orgId)));
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops; waits for the running pass. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    await this.running;
  }

  /** Projects everything sealed so far (every organization), then resolves. For tests and commands. */
  async drain(): Promise<void> {
    await this.running;
    this.due = 'all';
    await this.pass();
  }

  private wake(orgIds?: string[]): void {
    if (this.stopped) return;
    if (!orgIds) this.due = 'all';
    else if (this.due !== 'all') for (const id of orgIds) this.due.add(id);
    if (this.running) return;
    this.running = this.pass()
      .catch((err: unknown) => this.logger.error({ err }, 'end-user activity projection pass failed; retried on the next poll'))
      .finally(() => {
        this.running = undefined;
        if (this.due === 'all' || this.due.size > 0) this.wake([]);
      });
  }

  private async pass(): Promise<void> {
    const scope = this.due;
    this.due = new Set();
    if (scope !== 'all' && scope.size === 0) return;
    const heads = (await this.auditLog.heads()).filter((h) => scope === 'all' || scope.has(h.orgId));
    const cursors = new Map<string, number>();
    for (let i = 0; i < heads.length; i += 1000) {
      const rows: Array<{ orgId: string; seq: string }> = await this.db.knex('analytics.activity_cursors').whereIn('orgId', heads.slice(i, i + 1000).map((h) => h.orgId)).select('orgId', 'seq');
      for (const r of rows) cursors.set(r.orgId, Number(r.seq));
    }
    const behind = heads.filter((h) => h.seq > (cursors.get(h.orgId) ?? 0)).map((h) => ({ orgId: h.orgId, cursor: cursors.get(h.orgId) ?? 0, head: h.seq }));
    for (const row of behind) {
      if (this.stopped) return;
      try {
        await this.project(row.orgId, row.cursor, row.head);
      } catch (err) {
        this.logger.error({ err, orgId: row.orgId }, 'end-user activity projection failed for one organization; retried on the next poll');
      }
    }
  }

  /** Projects one organization's records in (`from`, `head`], a page per transaction. */
  private async project(orgId: string, from: number, head: number): Promise<void> {
    let cursor = from;
    while (cursor < head && !this.stopped) {
      const rows = await this.auditLog.records(orgId, { fromSeq: cursor + 1, toSeq: head, limit: PAGE, eventTypes: Object.keys(PROJECTED_TYPES) });
      const next = rows.length < PAGE ? head : rows.at(-1)!.seq;
      const activity = rows.map((r) => toActivity(orgId, r)).filter((a) => a !== undefined);
      await this.db.transaction(async (trx) => {
        if (activity.length) await trx('analytics.end_user_activity').insert(activity).onConflict(['orgId', 'seq']).ignore();
        await trx('analytics.activity_cursors').insert({ orgId, seq: next, updatedAt: this.clock.now() })
          .onConflict('orgId').merge(['seq', 'updatedAt']);
      });
      cursor = next;
    }
  }
}

const text = (v: unknown, max = 320): string | null => (typeof v === 'string' && v.length > 0 ? v.slice(0, max) : null);

/** The hot-store row of a record, or undefined when it is not one (an API key's, a signup by another source). */
function toActivity(orgId: string, r: SealedAuditRecord) {
  const kind: Kind = PROJECTED_TYPES[r.eventType as keyof typeof PROJECTED_TYPES];
  const d = r.businessData;
  // Written by the platform only: an ingesting API key cannot forge sign-ins.
  if (r.actor.type === 'apiKey' || (kind === 'signup' && d.via !== 'self_signup')) return undefined;
  return {
    orgId, seq: r.seq, kind, appGroupId: r.appGroupId ?? text(d.appGroupId, 64), endUserId: text(d.endUserId, 64),
    email: text(d.email)?.toLowerCase() ?? null, method: kind === 'signup' ? null : providerOf(d), reason: kind === 'failure' ? text(d.reason, 64) : null, ip: text(d.ip, 64), occurredAt: new Date(r.occurredAt),
  };
}
