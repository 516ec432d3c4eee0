import type { Logger } from 'pino';
import { PROJECTED_TYPES, toActivity, type ActivityRow } from './activity-row.ts';
import { addActiveDays } from './active-days.ts';
import type { EventCollection } from './event-collection.ts';
import { ChainFollower, type AuditLog, type Clock, type Database, type EventBus } from '../../core/index.ts';

/** Sealed records read per statement. */
const PAGE = 1000;

/**
 * The hot end-user store's projector: copies end users' sign-ins, failed attempts and self-signups
 * from each organization's sealed chain (read through `core.auditLog`) into
 * `analytics.end_user_activity` (not those of app groups whose event collection is off), and the
 * sign-in days into `analytics.end_user_active_days`, in one transaction with the cursor per
 * organization, so the figures outlive the
 * audit table's retention purge (the store keeps 181 days). Runs when this process seals a chain
 * (`core.audit.sealed`) and every `pollMs` for chains other processes sealed. One organization's
 * failure is logged and retried on the next pass; the others go on.
 * @see docs/api/audit-analytics.md "Hot end-user store"
 */
export class ActivityProjector {
  private readonly follower: ChainFollower<{ orgId: string; cursor: number; head: number }>;
  private stopped = false;

  constructor(private readonly db: Database, private readonly auditLog: AuditLog, private readonly collection: EventCollection, private readonly clock: Clock, logger: Logger, pollMs = 10_000) {
    this.follower = new ChainFollower({
      auditLog, logger, pollMs, what: 'end-user activity projection',
      select: (heads) => this.behind(heads),
      work: (org) => this.project(org.orgId, org.cursor, org.head),
    });
  }

  /** Starts polling and reacting to chains this process sealed. */
  start(events: EventBus): void {
    this.follower.start(events);
  }

  /** Stops; waits for the running pass. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.follower.stop();
  }

  /** Projects everything sealed so far (every organization), then resolves. For tests and commands. */
  async drain(): Promise<void> {
    await this.follower.drain();
  }

  /** The organizations whose head is past their cursor (cursors read a thousand at a time). */
  private async behind(heads: Array<{ orgId: string; seq: number }>): Promise<Array<{ orgId: string; cursor: number; head: number }>> {
    const cursors = new Map<string, number>();
    for (let i = 0; i < heads.length; i += 1000) {
      const rows: Array<{ orgId: string; seq: string }> = await this.db.knex('analytics.activity_cursors').whereIn('orgId', heads.slice(i, i + 1000).map((h) => h.orgId)).select('orgId', 'seq');
      for (const r of rows) cursors.set(r.orgId, Number(r.seq));
    }
    return heads.filter((h) => h.seq > (cursors.get(h.orgId) ?? 0)).map((h) => ({ orgId: h.orgId, cursor: cursors.get(h.orgId) ?? 0, head: h.seq }));
  }

  /** Projects one organization's records in (`from`, `head`], a page per transaction. */
  private async project(orgId: string, from: number, head: number): Promise<void> {
    let cursor = from;
    const off = await this.collection.disabled(orgId);
    while (cursor < head && !this.stopped) {
      const rows = await this.auditLog.records(orgId, { fromSeq: cursor + 1, toSeq: head, limit: PAGE, eventTypes: Object.keys(PROJECTED_TYPES) });
      const next = rows.length < PAGE ? head : rows.at(-1)!.seq;
      const activity = rows.map(toActivity).filter((a): a is ActivityRow => a !== undefined && !(a.appGroupId && off.has(a.appGroupId)));
      await this.db.transaction(async (trx) => {
        if (activity.length) await trx('analytics.end_user_activity').insert(activity).onConflict(['orgId', 'seq']).ignore();
        await addActiveDays(trx, activity);
        await trx('analytics.activity_cursors').insert({ orgId, seq: next, updatedAt: this.clock.now() })
          .onConflict('orgId').merge(['seq', 'updatedAt']);
      });
      cursor = next;
    }
  }
}

