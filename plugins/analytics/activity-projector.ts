import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { AUDIT_SEALED_EVENT, type AuditSealedPayload, type Clock, type Database, type EventBus } from '../../core/index.ts';

/** Event types the hot end-user store projects, and the kind of row each becomes. @see docs/api/audit-analytics.md */
export const PROJECTED_TYPES = { 'org.end_user.signed_in': 'login', 'org.end_user.sign_in_failed': 'failure', 'org.end_user.created': 'signup' } as const;
/** Sealed records read per statement. */
const PAGE = 1000;

type Kind = (typeof PROJECTED_TYPES)[keyof typeof PROJECTED_TYPES];

/**
 * The hot end-user store's projector: copies end users' sign-ins, failed attempts and self-signups
 * from each organization's sealed chain (`core.audit_events`, read only) into
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

  constructor(private readonly db: Database, private readonly clock: Clock, private readonly logger: Logger, private readonly pollMs = 10_000) {}

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
    let query = this.db.knex('core.audit_heads as h')
      .leftJoin('analytics.activity_cursors as c', 'c.orgId', 'h.orgId')
      .whereRaw('h.seq > coalesce(c.seq, 0)')
      .select('h.orgId', 'h.seq as head', this.db.knex.raw('coalesce(c.seq, 0) as cursor'));
    if (scope !== 'all') query = query.whereIn('h.orgId', [...scope]);
    for (const row of (await query) as Array<{ orgId: string; head: string; cursor: string }>) {
      if (this.stopped) return;
      try {
        await this.project(row.orgId, Number(row.cursor), Number(row.head));
      } catch (err) {
        this.logger.error({ err, orgId: row.orgId }, 'end-user activity projection failed for one organization; retried on the next poll');
      }
    }
  }

  /** Projects one organization's records in (`from`, `head`], a page per transaction. */
  private async project(orgId: string, from: number, head: number): Promise<void> {
    let cursor = from;
    while (cursor < head && !this.stopped) {
      const rows: Array<{ seq: string; eventType: string; occurredAt: Date; appGroupId: string | null; businessData: Record<string, unknown> }> = await this.db
        .knex('core.audit_events')
        .where({ orgId }).andWhere('seq', '>', cursor).andWhere('seq', '<=', head)
        .whereIn('eventType', Object.keys(PROJECTED_TYPES))
        .andWhereNot('actorType', 'apiKey') // written by the platform only: an ingesting key cannot forge sign-ins
        .orderBy('seq').limit(PAGE)
        .select('seq', 'eventType', 'occurredAt', 'appGroupId', 'businessData');
      const next = rows.length < PAGE ? head : Number(rows.at(-1)!.seq);
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

function toActivity(orgId: string, r: { seq: string; eventType: string; occurredAt: Date; appGroupId: string | null; businessData: Record<string, unknown> }) {
  const kind: Kind = PROJECTED_TYPES[r.eventType as keyof typeof PROJECTED_TYPES];
  const d = r.businessData;
  if (kind === 'signup' && d.source !== 'self_signup') return undefined;
  return {
    orgId, seq: Number(r.seq), kind, appGroupId: r.appGroupId ?? text(d.appGroupId, 64), endUserId: text(d.endUserId, 64),
    email: text(d.email)?.toLowerCase() ?? null, method: text(d.method, 64), reason: kind === 'failure' ? text(d.reason, 64) : null, ip: text(d.ip, 64), occurredAt: r.occurredAt,
  };
}
