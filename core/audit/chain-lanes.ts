import type { Logger } from 'pino';

/** One send a claim recorded: run once, after the claim resolved, in the organization's lane `lane`. */
export interface ChainSend {
  /** The lane within the organization (e.g. a webhook endpoint's id): its sends run in order, `concurrency` at once. */
  lane: string;
  /** Sends one unit (one request). Should not reject; a rejection is logged, never retried. */
  send: () => Promise<void>;
}

/** How a claiming {@link ChainFollower} runs what its claims recorded. */
export interface ChainLaneOptions {
  /** Sends running at once in one lane: a positive integer (the webhook dispatcher: 4 per endpoint). */
  concurrency: number;
  /**
   * Sends queued or running per organization (all its lanes) before the follower stops claiming for
   * it: a positive integer. A full organization is skipped by the passes and due again once half of
   * its sends have finished (the webhook dispatcher: 20,000).
   */
  maxQueuedPerOrg: number;
  /** Called when a lane has nothing queued or running and is dropped (state kept per lane can go). */
  idle?: (orgId: string, lane: string) => void;
}

interface Lane {
  queue: Array<(() => Promise<void>) | undefined>;
  /** Index of the next send in `queue`. */
  next: number;
  active: number;
}

interface OrgLanes {
  lanes: Map<string, Lane>;
  /** Sends queued or running. */
  queued: number;
  /** Set while the organization is skipped for want of room: the head it was due with. */
  waitingHead?: number;
}

/**
 * The lanes of a claiming {@link ChainFollower}: per organization, one queue per lane name, each
 * running its sends in order with at most `concurrency` at once, so one organization's (or one
 * lane's) slow or failing receiver delays only its own sends. Internal to the follower.
 */
export class ChainLanes {
  private readonly orgs = new Map<string, OrgLanes>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  /**
   * @param room - called with an organization skipped for want of room once half its sends have finished, and the head it was due with.
   * @throws RangeError when `concurrency` or `maxQueuedPerOrg` is not a positive integer.
   */
  constructor(
    private readonly options: ChainLaneOptions,
    private readonly logger: Logger,
    private readonly what: string,
    private readonly room: (orgId: string, head: number) => void,
  ) {
    for (const key of ['concurrency', 'maxQueuedPerOrg'] as const) {
      if (!Number.isInteger(options[key]) || options[key] < 1) throw new RangeError(`ChainFollower lanes.${key} must be a positive integer, got ${options[key]}`);
    }
  }

  /** Whether the organization may claim more; if not, it is remembered and handed to `room` later with `head`. */
  admit(orgId: string, head: number): boolean {
    const org = this.orgs.get(orgId);
    if (!org || org.queued < this.options.maxQueuedPerOrg) return true;
    org.waitingHead = Math.max(head, org.waitingHead ?? 0);
    return false;
  }

  /** Queues a claim's sends in their lanes and starts what the lanes' concurrency allows. */
  enqueue(orgId: string, sends: readonly ChainSend[]): void {
    if (!sends.length) return;
    let org = this.orgs.get(orgId);
    if (!org) this.orgs.set(orgId, (org = { lanes: new Map(), queued: 0 }));
    org.queued += sends.length;
    const touched = new Set<string>();
    for (const { lane: name, send } of sends) {
      let lane = org.lanes.get(name);
      if (!lane) org.lanes.set(name, (lane = { queue: [], next: 0, active: 0 }));
      lane.queue.push(send);
      touched.add(name);
    }
    for (const name of touched) this.pump(orgId, org, name, org.lanes.get(name)!);
  }

  /** Starts no more sends (what is queued stays unsent); resolves when the running ones have finished. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  /** Resolves when no send is running and none is queued (or the lanes are closed). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running]);
  }

  private pump(orgId: string, org: OrgLanes, name: string, lane: Lane): void {
    while (!this.closed && lane.active < this.options.concurrency && lane.next < lane.queue.length) {
      const send = lane.queue[lane.next]!;
      lane.queue[lane.next++] = undefined;
      // Drop what was sent once it is most of the array (amortised O(1) per send).
      if (lane.next >= 1024 && lane.next * 2 >= lane.queue.length) {
        lane.queue = lane.queue.slice(lane.next);
        lane.next = 0;
      }
      lane.active += 1;
      // A send that throws at once fails like one that rejects.
      const run: Promise<void> = new Promise<void>((resolve) => resolve(send()))
        .catch((err: unknown) => this.logger.error({ err, orgId, lane: name }, `${this.what}: a send failed; it is not retried`))
        .then(() => {
          lane.active -= 1;
          this.running.delete(run);
          org.queued -= 1;
          if (org.queued <= this.options.maxQueuedPerOrg / 2 && org.waitingHead !== undefined) {
            const head = org.waitingHead;
            org.waitingHead = undefined;
            this.room(orgId, head);
          }
          if (lane.next < lane.queue.length) this.pump(orgId, org, name, lane);
          else if (lane.active === 0) {
            // An idle lane is dropped: the next claim starts a new one.
            org.lanes.delete(name);
            if (!org.lanes.size) this.orgs.delete(orgId);
            this.options.idle?.(orgId, name);
          }
        });
      this.running.add(run);
    }
  }
}
