import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import {
  AUDIT_SEALED_EVENT, EgressError,
  type AuditLog, type AuditSealedPayload, type AuditService, type Clock, type Database, type Egress, type EventBus, type SealedAuditRecord,
} from '../../core/index.ts';
import { matchesAny } from './event-patterns.ts';
import type { EndpointsService } from './endpoints.service.ts';
import { envelopeBodies, signedHeaders } from './envelope.ts';
import { BREAKER_THRESHOLD, OutcomeRecorder, type Outcome } from './outcome-recorder.ts';

/** Tuning of the {@link Dispatcher}; the defaults are the documented behaviour. */
export interface DispatcherOptions {
  /** Delivery time-out in milliseconds (connect, answer and body): 10,000. */
  timeoutMs: number;
  /** How often every organization's chain is looked at (events sealed by other processes): 1,000 ms. */
  pollMs: number;
  /** Sealed events claimed per organization per transaction: 50 (small, so the first requests leave soon). */
  batchSize: number;
  /** Requests in flight to one endpoint at once: 4. */
  perEndpointConcurrency: number;
  /** Claimed deliveries waiting in this process per organization before it claims more: 2,000. */
  maxQueuedPerOrg: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = { timeoutMs: 10_000, pollMs: 1_000, batchSize: 200, perEndpointConcurrency: 4, maxQueuedPerOrg: 20_000 };

/** A delivery 'sending' for longer than this was cut short by a stopped process: it becomes `unknown`. */
const STALE_AFTER_MS = 10 * 60_000;
/** How often that sweep runs. */
const STALE_SWEEP_MS = 60_000;

interface LiveEndpoint {
  id: string;
  url: string;
  events: unknown;
  secretCiphertext: string;
  fromSeq: string | number;
  createdByOwner: boolean;
  consecutiveFailures: number;
}

interface Delivery {
  id: string;
  orgId: string;
  endpointId: string;
  /** The endpoint's failure counter when the delivery was claimed (seeds its lane). */
  failuresAtClaim: number;
  /** The endpoint's URL when the delivery was claimed (checked again by core.egress at connect). */
  url: string;
  body: string;
  secret: string;
}

/** A delivery row as the claim records it (`sending`). */
interface Row {
  id: string;
  endpointId: string;
  auditEventId: string;
  eventSeq: number;
  eventType: string;
}

/** One endpoint's queue in this process: at most `perEndpointConcurrency` requests at once. */
interface Lane {
  queue: Delivery[];
  active: number;
  /** Failures since the last success, counted as outcomes arrive (the database lags one flush). */
  failures: number;
  /** Set when `failures` reached the breaker: what is still queued is skipped, not sent. */
  disabled: boolean;
}

/**
 * Delivers sealed audit events to webhook endpoints, **at most once**. For each organization with
 * endpoints, one transaction locks its cursor (`FOR UPDATE SKIP LOCKED`, so several Aerie
 * processes share the work), records one `sending` delivery per matching endpoint and event, and
 * advances the cursor; only after that commit do requests leave, through `core.egress`. A process
 * that dies mid-way leaves `sending` rows that are never sent again (they turn `unknown`). No retries.
 * Each endpoint has its own lane, so a slow or hanging receiver delays only its own deliveries;
 * `BREAKER_THRESHOLD` consecutive failures disable it (a success resets the counter). Outcomes are
 * written in batches by the {@link OutcomeRecorder}.
 * @see docs/api/webhooks.md "Delivery"
 */
export class Dispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly queuedPerOrg = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Organizations skipped by a pass because their queue here was full. */
  private readonly waitingForRoom = new Set<string>();
  private readonly recorder: OutcomeRecorder;
  private timer?: NodeJS.Timeout;
  private subscription?: Subscription;
  private passRunning = false;
  /** What the next pass covers: named organizations, or all of them. */
  private due: Set<string> | 'all' = new Set();
  private stopped = false;
  private lastSweepAt = 0;
  private lastCutoff?: Date;

  constructor(
    private readonly db: Database,
    private readonly auditLog: AuditLog,
    audit: AuditService,
    private readonly endpoints: EndpointsService,
    private readonly egress: Egress,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions = DEFAULT_DISPATCHER_OPTIONS,
  ) {
    this.recorder = new OutcomeRecorder(db, audit, clock, logger);
  }

  /** Starts polling, and reacts at once to chains this process sealed. */
  start(events: EventBus): void {
    this.subscription = events.on(AUDIT_SEALED_EVENT).subscribe((e) => {
      const { heads } = e.payload as AuditSealedPayload;
      if (heads.length) this.wake(heads.map((h) => h.orgId));
    });
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops claiming and sending; waits for requests in flight (each bounded by the time-out) and their outcomes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    while (this.passRunning || this.inFlight.size) await Promise.race([...this.inFlight, new Promise((r) => setTimeout(r, 20))]);
    await this.recorder.idle();
  }

  /**
   * Runs a pass now (or right after the running one) over `orgIds`, or over every organization with
   * endpoints when none are named (the poll, which also finds chains other processes sealed).
   */
  wake(orgIds?: readonly string[]): void {
    if (this.stopped) return;
    if (!orgIds) this.due = 'all';
    else if (this.due !== 'all') for (const id of orgIds) this.due.add(id);
    if (this.passRunning) return;
    this.passRunning = true;
    void this.pass()
      .catch((err: unknown) => this.logger.error({ err }, 'webhook dispatch pass failed; retried on the next poll'))
      .finally(() => {
        this.passRunning = false;
        if ((this.due === 'all' || this.due.size > 0) && !this.stopped) this.wake([]);
      });
  }

  private markDue(orgId: string): void {
    if (this.due !== 'all') this.due.add(orgId);
  }

  private async pass(): Promise<void> {
    const scope = this.due;
    this.due = new Set();
    if (scope !== 'all' && scope.size === 0) return;
    await this.markStale();
    let query = this.db.knex('webhooks.cursors').select('orgId', 'seq');
    if (scope !== 'all') query = query.whereIn('orgId', [...scope]);
    const cursors: Array<{ orgId: string; seq: string | number }> = await query;
    for (const cursor of cursors) {
      if (this.stopped) return;
      if ((this.queuedPerOrg.get(cursor.orgId) ?? 0) >= this.options.maxQueuedPerOrg) {
        this.waitingForRoom.add(cursor.orgId); // woken when half of its queue has left
        continue;
      }
      // One organization's failure (a poison row, a database error) never stops the others.
      try {
        const head = await this.auditLog.headSeq(cursor.orgId);
        // A full batch claimed: more may be waiting, so this organization is due again.
        if (head > Number(cursor.seq) && (await this.claim(cursor.orgId, Number(cursor.seq)))) this.markDue(cursor.orgId);
      } catch (err) {
        this.logger.error({ err, orgId: cursor.orgId }, 'webhook dispatch failed for one organization; retried on the next poll');
      }
    }
  }

  /**
   * Records the deliveries of the next sealed events and advances the cursor, then sends them.
   * @returns whether a full batch was claimed (more may be waiting).
   */
  private async claim(orgId: string, fromSeq: number): Promise<boolean> {
    // Read outside the transaction: embedded PGlite has one connection.
    const records = await this.auditLog.records(orgId, { fromSeq: fromSeq + 1, limit: this.options.batchSize });
    if (!records.length) return false;
    // The counters read below then include every outcome this process has seen so far.
    await this.recorder.written();
    const claimed = await this.db.transaction(async (trx) => {
      const cursor = await trx('webhooks.cursors').where({ orgId }).forUpdate().skipLocked().first();
      if (!cursor || Number(cursor.seq) !== fromSeq) return []; // another process took this batch
      const endpoints: LiveEndpoint[] = await trx('webhooks.endpoints').where({ orgId, isActive: true }).whereNull('deletedAt')
        .select('id', 'url', 'events', 'secretCiphertext', 'fromSeq', 'createdByOwner', 'consecutiveFailures');
      const now = this.clock.now();
      const deliveries: Delivery[] = [];
      const rows: Row[] = [];
      const secrets = new Map<string, string>();
      for (const record of records) {
        const targets = endpoints.filter((e) => selects(e, record));
        if (!targets.length) continue;
        const bodyFor = envelopeBodies(record);
        const entropy = randomBytes(16 * targets.length);
        for (const [i, endpoint] of targets.entries()) {
          const id = `msg_${entropy.subarray(16 * i, 16 * i + 16).toString('base64url')}`;
          let secret = secrets.get(endpoint.id);
          if (!secret) secrets.set(endpoint.id, (secret = this.endpoints.secretOf(endpoint.id, endpoint.secretCiphertext)));
          deliveries.push({ id, orgId, endpointId: endpoint.id, failuresAtClaim: endpoint.consecutiveFailures, url: endpoint.url, body: bodyFor(id), secret });
          rows.push({ id, endpointId: endpoint.id, auditEventId: record.id, eventSeq: record.seq, eventType: record.eventType });
        }
      }
      if (rows.length) {
        // Arrays, not a VALUES list: a handful of parameters whatever the batch size.
        await trx.raw(
          `INSERT INTO webhooks.deliveries (id, org_id, endpoint_id, audit_event_id, event_seq, event_type, outcome, attempted_at)
           SELECT id, ?::uuid, endpoint_id, audit_event_id, event_seq, event_type, 'sending', ?
           FROM unnest(?::text[], ?::uuid[], ?::uuid[], ?::bigint[], ?::text[]) AS r(id, endpoint_id, audit_event_id, event_seq, event_type)`,
          [orgId, now, rows.map((r) => r.id), rows.map((r) => r.endpointId), rows.map((r) => r.auditEventId), rows.map((r) => r.eventSeq), rows.map((r) => r.eventType)],
        );
      }
      await trx('webhooks.cursors').where({ orgId }).update({ seq: records.at(-1)!.seq, updatedAt: now });
      return deliveries;
    });
    // Committed: the attempts are on record. Only now do requests leave.
    for (const delivery of claimed) this.enqueue(delivery);
    return records.length === this.options.batchSize;
  }

  private enqueue(delivery: Delivery): void {
    let lane = this.lanes.get(delivery.endpointId);
    if (!lane) this.lanes.set(delivery.endpointId, (lane = { queue: [], active: 0, failures: delivery.failuresAtClaim, disabled: false }));
    lane.queue.push(delivery);
    this.queuedPerOrg.set(delivery.orgId, (this.queuedPerOrg.get(delivery.orgId) ?? 0) + 1);
    this.drain(delivery.endpointId, lane);
  }

  private drain(endpointId: string, lane: Lane): void {
    // Once stopping, nothing new leaves: what is still queued stays `sending` and turns `unknown`.
    while (!this.stopped && lane.active < this.options.perEndpointConcurrency && lane.queue.length) {
      const delivery = lane.queue.shift()!;
      lane.active += 1;
      const run = this.deliver(delivery, lane)
        .catch((err: unknown) => this.logger.error({ err, deliveryId: delivery.id }, 'a webhook delivery failed unexpectedly'))
        .finally(() => {
          lane.active -= 1;
          this.inFlight.delete(run);
          const queued = (this.queuedPerOrg.get(delivery.orgId) ?? 1) - 1;
          if (queued > 0) this.queuedPerOrg.set(delivery.orgId, queued);
          else this.queuedPerOrg.delete(delivery.orgId);
          if (queued <= this.options.maxQueuedPerOrg / 2 && this.waitingForRoom.delete(delivery.orgId)) this.wake([delivery.orgId]);
          if (lane.queue.length) this.drain(endpointId, lane);
          // An idle lane is dropped: the next claim seeds a new one from the (then written) counter.
          else if (lane.active === 0) this.lanes.delete(endpointId);
        });
      this.inFlight.add(run);
    }
  }

  private async deliver(d: Delivery, lane: Lane): Promise<void> {
    const base = { deliveryId: d.id, orgId: d.orgId, endpointId: d.endpointId };
    if (lane.disabled) {
      this.recorder.record({ ...base, outcome: 'skipped', failureClass: 'endpoint_disabled', detail: 'the endpoint was disabled by the circuit breaker before this request left' });
      return;
    }
    const at = this.clock.now();
    let result: Outcome;
    try {
      const res = await this.egress.post(d.url, { headers: signedHeaders(d.secret, d.id, at, d.body), body: d.body, timeoutMs: this.options.timeoutMs, maxResponseBytes: 1024 });
      result = res.status >= 200 && res.status < 300
        ? { ...base, outcome: 'succeeded', httpStatus: res.status, latencyMs: res.latencyMs }
        : { ...base, outcome: 'failed', httpStatus: res.status, latencyMs: res.latencyMs, failureClass: res.status >= 300 && res.status < 400 ? 'redirect' : 'http_status', detail: `HTTP ${res.status}` };
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      result = { ...base, outcome: 'failed', latencyMs: Date.now() - at.getTime(), failureClass: error.failureClass, detail: error.detail };
    }
    lane.failures = result.outcome === 'succeeded' ? 0 : lane.failures + 1;
    if (lane.failures >= BREAKER_THRESHOLD) lane.disabled = true;
    this.recorder.record(result);
  }

  /** Deliveries left `sending` by a process that stopped: never re-sent, marked `unknown`. */
  private async markStale(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastSweepAt < STALE_SWEEP_MS) return;
    const cutoff = new Date(now - STALE_AFTER_MS);
    // After the first sweep of this process, only the window since the previous cutoff is looked at.
    let q = this.db.knex('webhooks.deliveries').where({ outcome: 'sending' }).where('attemptedAt', '<', cutoff);
    if (this.lastCutoff) q = q.where('attemptedAt', '>=', this.lastCutoff);
    await q.update({ outcome: 'unknown', detail: 'Aerie stopped before the outcome was known; the delivery is not sent again', completedAt: this.clock.now() });
    this.lastSweepAt = now;
    this.lastCutoff = cutoff;
  }
}

/** Whether `endpoint` receives `record`: after its creation, by its patterns, `payment.*` only if the Owner created it. */
function selects(endpoint: LiveEndpoint, record: SealedAuditRecord): boolean {
  if (record.seq <= Number(endpoint.fromSeq)) return false;
  if (record.eventType.toLowerCase().startsWith('payment.') && !endpoint.createdByOwner) return false;
  return matchesAny(endpoint.events, record.eventType);
}
