import type { Logger } from 'pino';
import type { EventBus } from '../events.ts';
import type { AuditLog } from './audit-log.types.ts';
import { followSealedChains } from './audit-sealed-event.ts';

/** What a {@link ChainFollower} does. */
export interface ChainFollowerOptions<T extends { orgId: string }> {
  auditLog: AuditLog;
  logger: Logger;
  /** Milliseconds between polls (chains other processes sealed). */
  pollMs: number;
  /** What the follower is, for its log lines ("end-user activity projection"). */
  what: string;
  /** From the heads of the due organizations, those with work, with what the work needs (e.g. cursors read in one statement). */
  select: (heads: Array<{ orgId: string; seq: number }>) => Promise<T[]>;
  /** The work for one organization; a failure is logged and retried on the next poll, the others go on. */
  work: (item: T) => Promise<void>;
}

/**
 * Follows the sealed chains for work kept behind its own cursors (the end-user activity projector,
 * the raw archive): a pass over the chains this process just sealed, with the heads the sealing
 * event names (at once), or over every organization's head (every `pollMs`), one pass at a time, organizations named while one runs collected
 * for the next. One organization's failure never stops the others.
 * @see docs/plugins.md "Following the sealed chains"
 */
export class ChainFollower<T extends { orgId: string }> {
  private unfollow?: () => void;
  private running?: Promise<void>;
  /** What the next pass covers: every organization, or the chains this process sealed with their new heads. */
  private due: Map<string, number> | 'all' = 'all';
  private stopped = false;

  constructor(private readonly options: ChainFollowerOptions<T>) {}

  /** Starts following (`core.audit.sealed` and the poll). */
  start(events: EventBus): void {
    this.unfollow = followSealedChains(events, this.options.pollMs, (heads) => this.wake(heads));
  }

  /** Stops following; waits for the running pass. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow?.();
    await this.running;
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Waits for the running pass, then runs one over every organization (tests, commands). */
  async drain(): Promise<void> {
    await this.running;
    this.due = 'all';
    await this.pass(true);
  }

  private wake(heads?: Array<{ orgId: string; seq: number }>): void {
    if (this.stopped) return;
    if (!heads) this.due = 'all';
    else if (this.due !== 'all') for (const h of heads) this.due.set(h.orgId, Math.max(h.seq, this.due.get(h.orgId) ?? 0));
    if (this.running) return;
    this.running = this.pass(false)
      .catch((err: unknown) => this.options.logger.error({ err }, `${this.options.what} pass failed; retried on the next poll`))
      .finally(() => {
        this.running = undefined;
        if (this.due === 'all' || this.due.size > 0) this.wake([]);
      });
  }

  private async pass(draining: boolean): Promise<void> {
    const scope = this.due;
    this.due = new Map();
    if (scope !== 'all' && scope.size === 0) return;
    // The sealing event names the chains and their heads; only a poll reads every head.
    const heads = scope === 'all' ? await this.options.auditLog.heads() : [...scope].map(([orgId, seq]) => ({ orgId, seq }));
    for (const item of await this.options.select(heads)) {
      if (this.stopped && !draining) return;
      try {
        await this.options.work(item);
      } catch (err) {
        this.options.logger.error({ err, orgId: item.orgId }, `${this.options.what} failed for one organization; retried on the next poll`);
      }
    }
  }
}
