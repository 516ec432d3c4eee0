import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ChainFollower, EgressError,
  type AuditLog, type AuditService, type ChainClaim, type ChainSend, type Clock, type Database, type Egress, type EventBus, type SealedAuditRecord,
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
  /** The endpoint's failure counter when the batch was claimed (seeds its breaker). */
  failuresAtClaim: number;
  claimedAt: Date;
  records: SealedAuditRecord[];
  /** The body of `records[i]` for a delivery id (the record is serialised once for every endpoint). */
  bodies: Array<(id: string) => string>;
}

/** An endpoint's circuit breaker while its lane lives in this process. */
interface Breaker {
  /** Failures since the last success, counted as outcomes arrive (the database lags one flush). */
  failures: number;
  /** Set when `failures` reached the breaker: what is still queued is skipped, not sent. */
  disabled: boolean;
}

/**
 * Delivers sealed audit events to webhook endpoints, **at most once**. It follows the chains with
 * the kernel's {@link ChainFollower}, claiming: for each organization with endpoints, one
 * transaction locks its cursor (`FOR UPDATE SKIP LOCKED`, so several Aerie processes share the
 * work), records one claim per endpoint for the batch ("endpoint E is sent these chain positions,
 * with these delivery ids") and advances the cursor; only after that commit do requests leave,
 * through `core.egress`. Each delivery's outcome is written once, by the {@link OutcomeRecorder} in
 * batches (one row per claim and flush); the claim goes when its last outcome is written. The
 * process keeps a heartbeat on its open claims; a claim without one for `interruptedAfterMs` (its
 * process died) turns into `unknown` rows for what has no outcome, and is never sent again. No retries.
 * Each endpoint has its own lane (the follower's, per organization), so a slow or hanging receiver
 * delays only its own deliveries; `BREAKER_THRESHOLD` consecutive failures disable it (a success
 * resets the counter).
 * @see docs/api/webhooks.md "Delivery"
 */
export class Dispatcher {
  private readonly follower: ChainFollower<{ orgId: string; seq: number }>;
  /** The breakers of the endpoints with a lane here: seeded by the claim that starts the lane, dropped with it. */
  private readonly breakers = new Map<string, Breaker>();
  private readonly recorder: OutcomeRecorder;
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
    this.follower = new ChainFollower({
      auditLog, logger, pollMs: options.pollMs, what: 'webhook dispatch',
      select: (heads) => this.behind(heads),
      pollHeads: () => this.headsWithCursors(),
      claim: ({ orgId, seq }) => this.claim(orgId, seq),
      lanes: { concurrency: options.perEndpointConcurrency, maxQueuedPerOrg: options.maxQueuedPerOrg, idle: (_orgId, endpointId) => this.breakers.delete(endpointId) },
    });
  }

  /** Starts polling, and reacts at once to chains this process sealed. */
  start(events: EventBus): void {
    this.follower.start(events);
  }

  /**
   * Stops claiming and sending; waits for requests in flight (each bounded by the time-out) and
   * their outcomes. Deliveries still queued are not sent: their claims lose their heartbeat and
   * turn `unknown` after `interruptedAfterMs`.
   */
  async stop(): Promise<void> {
    await this.follower.stop();
    await this.recorder.idle();
  }

  /** What a poll looks at: the heads of the organizations with a cursor (with endpoints), not every organization's. */
  private async headsWithCursors(): Promise<Array<{ orgId: string; seq: number }>> {
    const cursors: Array<{ orgId: string }> = await this.db.knex('webhooks.cursors').select('orgId');
    const heads = [];
    for (const { orgId } of cursors) heads.push({ orgId, seq: await this.auditLog.headSeq(orgId) });
    return heads;
  }

  /** Once a pass: the upkeep of the claims, then the organizations whose chain grew past their cursor. */
  private async behind(heads: Array<{ orgId: string; seq: number }>): Promise<Array<{ orgId: string; seq: number }>> {
    await this.upkeep();
    const headOf = new Map(heads.map((h) => [h.orgId, h.seq]));
    const cursors: Array<{ orgId: string; seq: string | number }> = await this.db.knex('webhooks.cursors')
      .whereRaw('org_id = ANY(?::uuid[])', [[...headOf.keys()]]).select('orgId', 'seq');
    return cursors.filter((c) => headOf.get(c.orgId)! > Number(c.seq)).map((c) => ({ orgId: c.orgId, seq: Number(c.seq) }));
  }

  /**
   * Records the claims of the next sealed events and advances the cursor, then hands the follower
   * their sends (one per delivery, in the endpoint's lane).
   */
  private async claim(orgId: string, fromSeq: number): Promise<ChainClaim> {
    // Read outside the transaction: embedded PGlite has one connection.
    const records = await this.auditLog.records(orgId, { fromSeq: fromSeq + 1, limit: this.options.batchSize });
    if (!records.length) return { sends: [], more: false };
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
          records: mine, bodies: mine.map((r) => bodies.get(r) ?? bodies.set(r, envelopeBodies(r)).get(r)!),
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
    // Committed: the attempts are on record. The follower starts the requests once this resolves.
    const sends: ChainSend[] = [];
    for (const claim of claimed) {
      this.recorder.opened(claim.id, claim.records.length);
      for (let index = 0; index < claim.records.length; index++) sends.push({ lane: claim.endpointId, send: () => this.deliver(claim, index) });
    }
    // A full batch: more may be waiting, so this organization is due again.
    return { sends, more: records.length === this.options.batchSize };
  }

  /** The breaker of `claim`'s endpoint, seeded from the claim when its lane starts. */
  private breaker(claim: Claim): Breaker {
    let breaker = this.breakers.get(claim.endpointId);
    if (!breaker) this.breakers.set(claim.endpointId, (breaker = { failures: claim.failuresAtClaim, disabled: false }));
    return breaker;
  }

  /** Sends delivery `index` of `claim` (or skips it when the endpoint's breaker tripped) and hands its outcome to the recorder. Never rejects. */
  private async deliver(claim: Claim, index: number): Promise<void> {
    const breaker = this.breaker(claim);
    const record = claim.records[index]!;
    const id = `msg_${claim.id}_${index}`;
    const outcome: Outcome = {
      deliveryId: id, orgId: claim.orgId, endpointId: claim.endpointId, claimId: claim.id, index,
      auditEventId: record.id, eventSeq: record.seq, eventType: record.eventType, attemptedAt: claim.claimedAt, outcome: 'skipped',
    };
    try {
      if (breaker.disabled) {
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
      breaker.failures = outcome.outcome === 'succeeded' ? 0 : breaker.failures + 1;
      if (breaker.failures >= BREAKER_THRESHOLD) breaker.disabled = true;
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
