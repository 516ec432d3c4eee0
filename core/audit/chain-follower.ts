import type { Logger } from 'pino';
import type { EventBus } from '../events.ts';
import type { AuditLog } from './audit-log.types.ts';
import { followSealedChains } from './audit-sealed-event.ts';
import { ChainLanes, type ChainLaneOptions, type ChainSend } from './chain-lanes.ts';

export type { ChainLaneOptions, ChainSend } from './chain-lanes.ts';

/** A chain head: `seq` is the position of the organization's last sealed record. */
type Head = { orgId: string; seq: number };

/** What every {@link ChainFollower} is given. */
interface ChainFollowerBase<T extends { orgId: string }> {
  auditLog: AuditLog;
  logger: Logger;
  /** Milliseconds between polls (chains other processes sealed). */
  pollMs: number;
  /** What the follower is, for its log lines ("end-user activity projection"). */
  what: string;
  /**
   * Once per pass, from the heads of the due organizations (every organization's on a poll), those
   * with work, with what the work needs (e.g. cursors read in one statement). A rejection fails the pass (logged; the next poll retries).
   */
  select: (heads: Array<{ orgId: string; seq: number }>) => Promise<T[]>;
  /**
   * The heads a poll hands `select`: by default every organization's (`auditLog.heads()`). A follower
   * working for a few organizations (those with webhook endpoints) reads only theirs.
   */
  pollHeads?: () => Promise<Array<{ orgId: string; seq: number }>>;
}

/** A follower whose work for an organization is one awaited catch-up (the analytics projector, the raw archive). */
export interface ChainWorkOptions<T extends { orgId: string }> extends ChainFollowerBase<T> {
  /** The work for one organization; a failure is logged and retried on the next poll, the others go on. */
  work: (item: T) => Promise<void>;
}

/**
 * A follower that claims, then sends (webhook delivery): at most once, since what a claim recorded
 * is never claimed again, and its sends leave only after the claim resolved.
 */
export interface ChainClaimOptions<T extends { orgId: string }> extends ChainFollowerBase<T> {
  /**
   * Claims the next part of one organization's chain: records what will be sent and advances the
   * organization's cursor, durably (committed) before it resolves, and answers the sends. A
   * rejection is logged and retried on the next poll (nothing is sent); the others go on.
   */
  claim: (item: T) => Promise<ChainClaim>;
  /** How the sends run: lanes per organization, their concurrency, the room per organization. */
  lanes: ChainLaneOptions;
}

/** What {@link ChainClaimOptions.claim} answers. */
export interface ChainClaim {
  /** The sends the claim recorded, each run once in its lane (none: nothing to send). */
  sends: ChainSend[];
  /**
   * Whether more may be waiting past what was claimed (a full batch): the organization is due again
   * right after this pass, so a long backlog is claimed a batch a pass, taking turns with the others.
   */
  more: boolean;
}

/** What a {@link ChainFollower} does: `work` each due organization, or `claim` and send in `lanes`. */
export type ChainFollowerOptions<T extends { orgId: string }> = ChainWorkOptions<T> | ChainClaimOptions<T>;

/**
 * Follows the sealed chains for work kept behind its own cursors (the end-user activity projector,
 * the raw archive, webhook delivery): a pass over the chains this process just sealed, with the
 * heads the sealing event names (at once), or over the heads a poll reads (every `pollMs`: every
 * organization's, or `pollHeads`), one pass at a time, organizations named while one runs collected for the next. One organization's
 * failure never stops the others. With `claim`, a pass only claims; the sends run afterwards in the
 * organization's lanes, so a slow receiver never holds up the passes nor another organization.
 * @see docs/plugins.md "Following the sealed chains"
 */
export class ChainFollower<T extends { orgId: string }> {
  private unfollow?: () => void;
  private running?: Promise<void>;
  /** What the next pass covers: every organization, or named ones with their heads. */
  private due: Map<string, number> | 'all' = 'all';
  private stopped = false;
  private readonly lanes?: ChainLanes;

  /** @throws RangeError when `lanes.concurrency` or `lanes.maxQueuedPerOrg` is not a positive integer. */
  constructor(private readonly options: ChainFollowerOptions<T>) {
    if ('claim' in options) this.lanes = new ChainLanes(options.lanes, options.logger, options.what, (orgId, seq) => this.wake([{ orgId, seq }]));
  }

  /** Starts following (`core.audit.sealed` and the poll). */
  start(events: EventBus): void {
    this.unfollow = followSealedChains(events, this.options.pollMs, (heads) => this.wake(heads));
  }

  /**
   * Stops following and claiming; waits for the running pass and the sends running. Sends still
   * queued are not sent (they were claimed: with claims on record, they can be reported unsent).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow?.();
    const sent = this.lanes?.close();
    await this.running;
    await sent;
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    await this.running;
  }

  /**
   * Runs a pass over every organization, then resolves once no pass runs and no send is queued or
   * running (tests, commands): with `claim`, everything sealed so far is sent.
   * @throws what the pass threw (reading the heads, `select`); an organization's failure is only logged.
   */
  async drain(): Promise<void> {
    await this.settled();
    this.due = 'all';
    await this.schedule(true);
    await this.settled();
  }

  private async settled(): Promise<void> {
    do {
      await this.running;
      await this.lanes?.settled();
    } while (this.running);
  }

  private wake(heads?: Head[]): void {
    if (this.stopped) return;
    if (!heads) this.due = 'all';
    else for (const h of heads) this.markDue(h);
    if (!this.running) void this.schedule(false);
  }

  private markDue(h: Head): void {
    if (this.due !== 'all') this.due.set(h.orgId, Math.max(h.seq, this.due.get(h.orgId) ?? 0));
  }

  /** Runs a pass as the running one. @returns the pass (a failure is also logged). */
  private schedule(draining: boolean): Promise<void> {
    const pass = this.pass(draining);
    this.running = pass
      .catch((err: unknown) => this.options.logger.error({ err }, `${this.options.what} pass failed; retried on the next poll`))
      .finally(() => {
        this.running = undefined;
        if (this.due === 'all' || this.due.size > 0) this.wake([]);
      });
    return pass;
  }

  private async pass(draining: boolean): Promise<void> {
    const scope = this.due;
    this.due = new Map();
    if (scope !== 'all' && scope.size === 0) return;
    // The sealing event names the chains and their heads; only a poll reads the heads.
    const heads = scope !== 'all' ? [...scope].map(([orgId, seq]) => ({ orgId, seq }))
      : await (this.options.pollHeads?.() ?? this.options.auditLog.heads());
    const headOf = new Map(heads.map((h) => [h.orgId, h.seq]));
    for (const item of await this.options.select(heads)) {
      if (this.stopped && !draining) return;
      try {
        if ('work' in this.options) await this.options.work(item);
        else await this.claim(this.options, item, headOf.get(item.orgId) ?? 0);
      } catch (err) {
        this.options.logger.error({ err, orgId: item.orgId }, `${this.options.what} failed for one organization; retried on the next poll`);
      }
    }
  }

  private async claim(options: ChainClaimOptions<T>, item: T, head: number): Promise<void> {
    // A full organization waits for room (its lanes call back once half has left).
    if (!this.lanes!.admit(item.orgId, head)) return;
    const { sends, more } = await options.claim(item);
    // Claimed: only now do the sends start.
    this.lanes!.enqueue(item.orgId, sends);
    if (more) this.markDue({ orgId: item.orgId, seq: head });
  }
}
