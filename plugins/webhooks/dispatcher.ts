import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  EgressError, followSealedChains,
  type AuditLog, type AuditService, type Clock, type Database, type Egress, type EventBus, type SealedAuditRecord,
} from '../../core/index.ts';
import { matchesAny } from './event-patterns.ts';
import type { EndpointsService } from './endpoints.service.ts';
import { envelopeBodies, signedHeaders } from './envelope.ts';
import { BREAKER_THRESHOLD, OutcomeRecorder, type Outcome } from './outcome-recorder.ts';

/** This process's name on the claims it records (their heartbeat is its own). */
const OWNER = `${process.pid}-${randomBytes(6).toString('hex')}`;

/** Tuning of the {@link Dispatcher}; the defaults are the documented behaviour. */
export interface DispatcherOptions {
  /** Delivery time-out in milliseconds (connect, answer and body): 10,000. */
  timeoutMs: number;
  /** How often every organization's chain is looked at (events sealed by other processes): 1,000 ms. */
  pollMs: number;
  /** Sealed events claimed per organization per transaction: 200. */
  batchSize: number;
  /** Requests in flight to one endpoint at once: 4. */
  perEndpointConcurrency: number;
  /** Claimed deliveries waiting in this process per organization before it claims more: 20,000. */
  maxQueuedPerOrg: number;
  /**
   * Milliseconds without a heartbeat after which a claim counts as abandoned (its process stopped):
   * its deliveries without an outcome are listed `unknown` and never sent. 60,000.
   */
  interruptedAfterMs: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  timeoutMs: 10_000, pollMs: 1_000, batchSize: 200, perEndpointConcurrency: 4, maxQueuedPerOrg: 20_000, interruptedAfterMs: 60_000,
};

/** What an abandoned claim's deliveries without an outcome say. */
const INTERRUPTED_DETAIL = 'Aerie stopped (or could not record the outcome) after recording the attempt; the delivery is not sent again';

interface LiveEndpoint {
  id: string;
  url: string;
  events: unknown;
  secretCiphertext: string;
  fromSeq: string | number;
  createdByOwner: boolean;
  consecutiveFailures: number;
}

/**
 * One endpoint's share of a claimed batch, as recorded in `webhooks.claims` before any of it is
 * sent: delivery `i` has the id `msg_{id}_{i}` and carries `records[i]`.
 */
interface Claim {
  id: string;
  orgId: string;
  endpointId: string;
  /** The endpoint's URL when the batch was claimed (checked again by core.egress at connect). */
  url: string;
  secret: string;
  /** The endpoint's failure counter when the batch was claimed (seeds its lane). */
  failuresAtClaim: number;
  claimedAt: Date;
  records: SealedAuditRecord[];
  /** The body of `records[i]` for a delivery id (the record is serialised once for every endpoint). */
  bodies: Array<(id: string) => string>;
  /** The next index to send. */
  next: number;
}

/** One endpoint's queue in this process: at most `perEndpointConcurrency` requests at once. */
interface Lane {
  claims: Claim[];
  active: number;
  /** Failures since the last success, counted as outcomes arrive (the database lags one flush). */
  failures: number;
  /** Set when `failures` reached the breaker: what is still queued is skipped, not sent. */
  disabled: boolean;
}

/**
 * Delivers sealed audit events to webhook endpoints, **at most once**. For each organization with
 * endpoints, one transaction locks its cursor (`FOR UPDATE SKIP LOCKED`, so several Aerie
 * processes share the work), records one claim per endpoint for the batch ("endpoint E is sent
 * these chain positions, with these delivery ids") and advances the cursor; only after that commit
 * do requests leave, through `core.egress`. Each delivery's outcome is written once, by the
 * {@link OutcomeRecorder} in batches (one row per claim and flush); the claim goes when its last outcome is written. The
 * process keeps a heartbeat on its open claims; a claim without one for `interruptedAfterMs` (its
 * process died) turns into `unknown` rows for what has no outcome, and is never sent again. No retries.
 * Each endpoint has its own lane, so a slow or hanging receiver delays only its own deliveries;
 * `BREAKER_THRESHOLD` consecutive failures disable it (a success resets the counter).
 * @see docs/api/webhooks.md "Delivery"
 */
export class Dispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly queuedPerOrg = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Organizations skipped by a pass because their queue here was full. */
  private readonly waitingForRoom = new Set<string>();
  private readonly recorder: OutcomeRecorder;
  private unfollow?: () => void;
  private passRunning = false;
  /** What the next pass covers: named organizations, or all of them. */
  private due: Set<string> | 'all' = new Set();
  private stopped = false;
  private lastUpkeepAt = 0;

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
    this.unfollow = followSealedChains(events, this.options.pollMs, (heads) => this.wake(heads?.map((h) => h.orgId)));
  }

  /**
   * Stops claiming and sending; waits for requests in flight (each bounded by the time-out) and
   * their outcomes. Deliveries still queued are not sent: their claims lose their heartbeat and
   * turn `unknown` after `interruptedAfterMs`.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unfollow?.();
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
    await this.upkeep();
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
   * Records the claims of the next sealed events and advances the cursor, then sends them.
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
      const claimedAt = this.clock.now();
      const bodies = new Map<SealedAuditRecord, (id: string) => string>();
      const claims: Claim[] = [];
      for (const endpoint of endpoints) {
        const mine = records.filter((r) => selects(endpoint, r));
        if (!mine.length) continue;
        claims.push({
          id: randomBytes(12).toString('base64url'), orgId, endpointId: endpoint.id, url: endpoint.url,
          secret: this.endpoints.secretOf(endpoint.id, endpoint.secretCiphertext), failuresAtClaim: endpoint.consecutiveFailures, claimedAt,
          records: mine, bodies: mine.map((r) => bodies.get(r) ?? bodies.set(r, envelopeBodies(r)).get(r)!), next: 0,
        });
      }
      if (claims.length) {
        await trx.raw(
          `INSERT INTO webhooks.claims (id, org_id, endpoint_id, seqs, event_ids, event_types, owner, claimed_at, heartbeat_at)
           SELECT c.id, ?::uuid, c.endpoint_id, c.seqs, c.event_ids, c.event_types, ?, ?, ?
           FROM json_to_recordset(?::json) AS c(id text, endpoint_id uuid, seqs bigint[], event_ids uuid[], event_types text[])`,
          [orgId, OWNER, claimedAt, claimedAt, JSON.stringify(claims.map((c) => ({
            id: c.id, endpoint_id: c.endpointId, seqs: c.records.map((r) => r.seq), event_ids: c.records.map((r) => r.id), event_types: c.records.map((r) => r.eventType),
          })))],
        );
      }
      await trx('webhooks.cursors').where({ orgId }).update({ seq: records.at(-1)!.seq, updatedAt: claimedAt });
      return claims;
    });
    // Committed: the attempts are on record. Only now do requests leave.
    for (const claim of claimed) {
      this.recorder.opened(claim.id, claim.records.length);
      this.enqueue(claim);
    }
    return records.length === this.options.batchSize;
  }

  private enqueue(claim: Claim): void {
    let lane = this.lanes.get(claim.endpointId);
    if (!lane) this.lanes.set(claim.endpointId, (lane = { claims: [], active: 0, failures: claim.failuresAtClaim, disabled: false }));
    lane.claims.push(claim);
    this.queuedPerOrg.set(claim.orgId, (this.queuedPerOrg.get(claim.orgId) ?? 0) + claim.records.length);
    this.drain(claim.endpointId, lane);
  }

  private drain(endpointId: string, lane: Lane): void {
    // Once stopping, nothing new leaves: what is still queued keeps its claim and turns `unknown`.
    while (!this.stopped && lane.active < this.options.perEndpointConcurrency && lane.claims.length) {
      const claim = lane.claims[0]!;
      const index = claim.next++;
      if (claim.next === claim.records.length) lane.claims.shift();
      lane.active += 1;
      const run = this.deliver(claim, index, lane).then(() => {
        lane.active -= 1;
        this.inFlight.delete(run);
        const queued = (this.queuedPerOrg.get(claim.orgId) ?? 1) - 1;
        if (queued > 0) this.queuedPerOrg.set(claim.orgId, queued);
        else this.queuedPerOrg.delete(claim.orgId);
        if (queued <= this.options.maxQueuedPerOrg / 2 && this.waitingForRoom.delete(claim.orgId)) this.wake([claim.orgId]);
        if (lane.claims.length) this.drain(endpointId, lane);
        // An idle lane is dropped: the next claim seeds a new one from the (then written) counter.
        else if (lane.active === 0) this.lanes.delete(endpointId);
      });
      this.inFlight.add(run);
    }
  }

  /** Sends delivery `index` of `claim` (or skips it when the lane's breaker tripped) and hands its outcome to the recorder. Never rejects. */
  private async deliver(claim: Claim, index: number, lane: Lane): Promise<void> {
    const record = claim.records[index]!;
    const id = `msg_${claim.id}_${index}`;
    const outcome: Outcome = {
      deliveryId: id, orgId: claim.orgId, endpointId: claim.endpointId, claimId: claim.id, index,
      auditEventId: record.id, eventSeq: record.seq, eventType: record.eventType, attemptedAt: claim.claimedAt, outcome: 'skipped',
    };
    try {
      if (lane.disabled) {
        outcome.failureClass = 'endpoint_disabled';
        outcome.detail = 'the endpoint was disabled by the circuit breaker before this request left';
        return;
      }
      const at = this.clock.now();
      const body = claim.bodies[index]!(id);
      try {
        const res = await this.egress.post(claim.url, { headers: signedHeaders(claim.secret, id, at, body), body, timeoutMs: this.options.timeoutMs, maxResponseBytes: 1024 });
        outcome.httpStatus = res.status;
        outcome.latencyMs = res.latencyMs;
        if (res.status >= 200 && res.status < 300) outcome.outcome = 'succeeded';
        else {
          outcome.outcome = 'failed';
          outcome.failureClass = res.status >= 300 && res.status < 400 ? 'redirect' : 'http_status';
          outcome.detail = `HTTP ${res.status}`;
        }
      } catch (error) {
        if (!(error instanceof EgressError)) {
          // Not an answer nor a known failure: whether it left is not known (never re-sent, not counted).
          this.logger.error({ err: error, deliveryId: id }, 'a webhook delivery failed unexpectedly');
          outcome.outcome = 'unknown';
          outcome.detail = 'the request failed unexpectedly inside Aerie; whether it reached the endpoint is not known and it is not sent again';
          return;
        }
        outcome.outcome = 'failed';
        outcome.latencyMs = Date.now() - at.getTime();
        outcome.failureClass = error.failureClass;
        outcome.detail = error.detail;
      }
      lane.failures = outcome.outcome === 'succeeded' ? 0 : lane.failures + 1;
      if (lane.failures >= BREAKER_THRESHOLD) lane.disabled = true;
    } finally {
      this.recorder.record(outcome);
    }
  }

  /**
   * Keeps this process's open claims alive, and turns claims nobody keeps alive (their process
   * stopped, or their outcomes could not be written) into `unknown` rows for each of their
   * deliveries without one; such deliveries are never sent again. At most every quarter of
   * `interruptedAfterMs` (1–15 s).
   */
  private async upkeep(): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() - this.lastUpkeepAt < Math.min(15_000, Math.max(1_000, this.options.interruptedAfterMs / 4))) return;
    this.lastUpkeepAt = now.getTime();
    const open = this.recorder.openClaims();
    if (open.length) await this.db.knex.raw('UPDATE webhooks.claims SET heartbeat_at = ? WHERE id = ANY(?::text[])', [now, open]);
    await this.db.transaction(async (trx) => {
      // Locked first, so a flush writing outcomes of these claims finishes before they are read:
      // the next statement (a new snapshot) sees its batches and writes `unknown` only for the rest.
      const stale: Array<{ id: string }> = (await trx.raw('SELECT id FROM webhooks.claims WHERE heartbeat_at < ? FOR UPDATE',
        [new Date(now.getTime() - this.options.interruptedAfterMs)])).rows;
      if (!stale.length) return;
      // One row per delivery (a rare path): an outcome that arrives late replaces its own row.
      await trx.raw(
        `WITH stale AS (DELETE FROM webhooks.claims WHERE id = ANY(?::text[]) RETURNING *)
         INSERT INTO webhooks.delivery_rows (id, org_id, endpoint_id, audit_event_id, event_seq, event_type, outcome, detail, attempted_at, completed_at)
         SELECT 'msg_' || s.id || '_' || (u.n - 1), s.org_id, s.endpoint_id, u.event_id, u.seq, u.event_type, 'unknown', ?, s.claimed_at, ?
         FROM stale s CROSS JOIN LATERAL unnest(s.seqs, s.event_ids, s.event_types) WITH ORDINALITY AS u(seq, event_id, event_type, n)
         WHERE NOT EXISTS (SELECT 1 FROM webhooks.delivery_batches b WHERE b.claim_id = s.id AND u.n - 1 = ANY(b.indexes))
         ON CONFLICT (endpoint_id, audit_event_id) DO NOTHING`,
        [stale.map((c) => c.id), INTERRUPTED_DETAIL, now],
      );
    });
  }
}

/** Whether `endpoint` receives `record`: after its creation, by its patterns, `payment.*` only if the Owner created it. */
function selects(endpoint: LiveEndpoint, record: SealedAuditRecord): boolean {
  if (record.seq <= Number(endpoint.fromSeq)) return false;
  if (record.eventType.toLowerCase().startsWith('payment.') && !endpoint.createdByOwner) return false;
  return matchesAny(endpoint.events, record.eventType);
}
