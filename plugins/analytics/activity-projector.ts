import type { Logger } from 'pino';
import { PROJECTED_TYPES, toActivity } from './activity-row.ts';
import type { EventCollection } from './event-collection.ts';
import { followSealedChains, type AuditLog, type Clock, type Database, type EventBus } from '../../core/index.ts';

/** Sealed records read per statement. */
const PAGE = 1000;

/**
 * The hot end-user store's projector: copies end users' sign-ins, failed attempts and self-signups
 * from each organization's sealed chain (read through `core.auditLog`) into
 * `analytics.end_user_activity` (not those of app groups whose event collection is off), behind a
 * cursor per organization, so the figures outlive the
 * audit table's retention purge (the store keeps 181 days). Runs when this process seals a chain
 * (`core.audit.sealed`) and every `pollMs` for chains other processes sealed. One organization's
 * failure is logged and retried on the next pass; the others go on.
 * @see docs/api/audit-analytics.md "Hot end-user store"
 */
export class ActivityProjector {
  private unfollow?: () => void;
  private running?: Promise<void>;
  private due: Set<string> | 'all' = 'all';
  private stopped = false;

  constructor(private readonly db: Database, private readonly auditLog: AuditLog, private readonly collection: EventCollection, private readonly clock: Clock, private readonly logger: Logger, private readonly pollMs = 10_000) {}

  /** Starts polling and reacting to chains this process sealed. */
  start(events: EventBus): void {
    this.unfollow = followSealedChains(events, this.pollMs, (orgIds) => this.wake(orgIds));
  }

  /** Stops; waits for the running pass. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow?.();
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
    const off = await this.collection.disabled(orgId);
    while (cursor < head && !this.stopped) {
      const rows = await this.auditLog.records(orgId, { fromSeq: cursor + 1, toSeq: head, limit: PAGE, eventTypes: Object.keys(PROJECTED_TYPES) });
      const next = rows.length < PAGE ? head : rows.at(-1)!.seq;
      const activity = rows.map(toActivity).filter((a) => a !== undefined && !(a.appGroupId && off.has(a.appGroupId)));
      await this.db.transaction(async (trx) => {
        if (activity.length) await trx('analytics.end_user_activity').insert(activity).onConflict(['orgId', 'seq']).ignore();
        await trx('analytics.activity_cursors').insert({ orgId, seq: next, updatedAt: this.clock.now() })
          .onConflict('orgId').merge(['seq', 'updatedAt']);
      });
      cursor = next;
    }
  }
}

