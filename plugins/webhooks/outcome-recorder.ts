import type { Logger } from 'pino';
import type { AuditService, Clock, Database } from '../../core/index.ts';

/** Consecutive failures that disable an endpoint. @see docs/api/webhooks.md "Delivery" */
export const BREAKER_THRESHOLD = 20;

/** Outcomes written per statement at most. */
const MAX_BATCH = 1000;
/** Milliseconds a busy recorder waits between flushes for more outcomes to gather. */
const GATHER_MS = 25;

/** What became of one delivery: one element of a `webhooks.delivery_batches` row. */
export interface Outcome {
  deliveryId: string;
  orgId: string;
  endpointId: string;
  /** The claim the delivery belongs to (its row is deleted once every delivery in it is written). */
  claimId: string;
  /** The delivery's position in its claim (its id is `msg_{claimId}_{index}`). */
  index: number;
  auditEventId: string;
  eventSeq: number;
  eventType: string;
  /** When the claim was recorded, before the request left (the row's `attempted_at`). */
  attemptedAt: Date;
  /** `unknown`: the request failed inside Aerie, so whether it left is not known (not counted by the breaker). */
  outcome: 'succeeded' | 'failed' | 'skipped' | 'unknown';
  httpStatus?: number;
  /** Milliseconds from sending to the end of the answer or the failure. */
  latencyMs?: number;
  failureClass?: string;
  detail?: string;
}

/**
 * Writes outcomes — one `webhooks.delivery_batches` row per claim and flush, the outcomes as arrays —
 * and moves the endpoints' failure counters, many per transaction: while one flush runs, the next
 * outcomes gather, so the database work per delivery shrinks as the rate grows. A claim whose
 * deliveries are all written is deleted in the same transaction. Per endpoint, outcomes count in the order they completed: a success resets the counter, and
 * reaching {@link BREAKER_THRESHOLD} disables the endpoint (the counter stays at the threshold),
 * audited once with actor `system`.
 */
export class OutcomeRecorder {
  private pending: Outcome[] = [];
  private running?: Promise<void>;
  /** Outcomes handed to {@link record}, and those whose flush has finished. */
  private received = 0;
  private settled = 0;
  private waiters: Array<{ upTo: number; resolve: () => void }> = [];
  /** Per open claim of this process: its deliveries whose rows are not yet written. */
  private readonly unwritten = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Notes a committed claim of `deliveries` deliveries: its row is deleted when the last of their rows is written. */
  opened(claimId: string, deliveries: number): void {
    this.unwritten.set(claimId, deliveries);
  }

  /** Queues `outcome` for the next flush. */
  record(outcome: Outcome): void {
    this.received += 1;
    this.pending.push(outcome);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when every outcome recorded before this call is written (later ones do not delay it). */
  written(): Promise<void> {
    if (this.settled >= this.received) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo: this.received, resolve }));
  }

  /** Resolves when nothing is left to write. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * The claims this process is still working on (rows not all written), whose heartbeat it keeps
   * fresh. A claim whose flush failed is dropped from it: its heartbeat stops, and the sweep turns
   * its unwritten deliveries `unknown`.
   */
  openClaims(): string[] {
    return [...this.unwritten.keys()];
  }

  private async drain(): Promise<void> {
    let first = true;
    while (this.pending.length) {
      // After a flush, let outcomes gather a moment: fewer, larger writes (the first goes at once,
      // and so does one a claim is waiting for).
      if (!first && this.pending.length < MAX_BATCH && !this.waiters.length) await new Promise((r) => setTimeout(r, GATHER_MS));
      first = false;
      const batch = this.pending.splice(0, MAX_BATCH);
      const perClaim = new Map<string, number>();
      for (const o of batch) perClaim.set(o.claimId, (perClaim.get(o.claimId) ?? 0) + 1);
      try {
        // A claim no longer open here (an earlier flush of it failed) is left to the sweep.
        await this.flush(batch, [...perClaim].filter(([id, n]) => (this.unwritten.get(id) ?? Infinity) <= n).map(([id]) => id));
        for (const [id, n] of perClaim) {
          const left = this.unwritten.get(id);
          if (left === undefined) continue;
          if (left > n) this.unwritten.set(id, left - n);
          else this.unwritten.delete(id);
        }
      } catch (err) {
        // Never re-sent, never lost silently: these claims are left to the sweep (`unknown`).
        for (const id of perClaim.keys()) this.unwritten.delete(id);
        this.logger.error({ err, deliveries: batch.length }, 'recording webhook outcomes failed');
      }
      this.settled += batch.length;
      this.waiters = this.waiters.filter((w) => (w.upTo <= this.settled ? (w.resolve(), false) : true));
    }
  }

  /** Writes `batch` and deletes the claims in `done` (whose last outcomes these are), in one transaction. */
  private async flush(batch: Outcome[], done: string[]): Promise<void> {
    const now = this.clock.now();
    const claims = batchesByClaim(batch);
    const runs = runsByEndpoint(batch);
    const resets = [...runs].filter(([, run]) => run.reset && run.trailingFailures === 0);
    const failing = [...runs].filter(([, run]) => run.trailingFailures > 0);
    await this.db.transaction(async (trx) => {
      // The claims still on record, locked against the sweep of interrupted claims (which deletes
      // them): it waits for this transaction, then sees these outcomes and writes `unknown` only for
      // what has none. A claim already gone was swept while this process was unresponsive: the
      // outcomes now known replace the `unknown` rows written for them.
      const live: Array<{ id: string }> = (await trx.raw('SELECT id FROM webhooks.claims WHERE id = ANY(?::text[]) FOR KEY SHARE', [[...claims.keys()]])).rows;
      const swept = live.length === claims.size ? [] : [...claims.keys()].filter((id) => !live.some((c) => c.id === id));
      // The batches, the rows they replace, the finished claims and the counters successes reset, in one statement.
      await trx.raw(
        `WITH v AS (
           SELECT * FROM json_to_recordset(?::json) AS v(claim_id text, org_id uuid, endpoint_id uuid, attempted_at timestamptz, indexes int[], event_ids uuid[],
             seqs bigint[], event_types text[], outcomes text[], http_status int[], latency_ms int[], failure_class text[], detail text[])
         ), written AS (
           INSERT INTO webhooks.delivery_batches (claim_id, org_id, endpoint_id, attempted_at, completed_at, indexes, event_ids, seqs, event_types, outcomes, http_status, latency_ms, failure_class, detail)
           SELECT claim_id, org_id, endpoint_id, attempted_at, ?, indexes, event_ids, seqs, event_types, outcomes, http_status, latency_ms, failure_class, detail FROM v
           RETURNING 1
         ), superseded AS (
           DELETE FROM webhooks.delivery_rows r USING v CROSS JOIN LATERAL unnest(v.event_ids) AS e(id)
           WHERE v.claim_id = ANY(?::text[]) AND r.endpoint_id = v.endpoint_id AND r.audit_event_id = e.id AND r.outcome = 'unknown'
           RETURNING 1
         ), finished AS (
           DELETE FROM webhooks.claims WHERE id = ANY(?::text[]) RETURNING 1
         ), reset AS (
           UPDATE webhooks.endpoints SET consecutive_failures = 0
           WHERE (org_id, id) IN (SELECT * FROM unnest(?::uuid[], ?::uuid[])) AND consecutive_failures > 0 RETURNING 1
         )
         SELECT (SELECT count(*) FROM written) AS written`,
        [JSON.stringify([...claims.values()]), now, swept, done, resets.map(([, run]) => run.orgId), resets.map(([id]) => id)],
      );
      for (const [endpointId, run] of failing) {
        const [row] = await trx('webhooks.endpoints').where({ orgId: run.orgId, id: endpointId, isActive: true })
          .update({ consecutiveFailures: trx.raw(`LEAST(?, ${run.reset ? '0' : 'consecutive_failures'} + ?)`, [BREAKER_THRESHOLD, run.trailingFailures]) })
          .returning(['consecutiveFailures']);
        if (!row || row.consecutiveFailures < BREAKER_THRESHOLD) continue;
        await trx('webhooks.endpoints').where({ orgId: run.orgId, id: endpointId }).update({ isActive: false, disabledAt: now, updatedAt: now });
        await this.audit.append(trx, {
          orgId: run.orgId, eventType: 'org.webhook.disabled', actor: { type: 'system', id: 'system' },
          businessData: { endpointId, reason: 'circuit_breaker', consecutiveFailures: row.consecutiveFailures },
        });
      }
    });
  }
}

/** One `webhooks.delivery_batches` row: a claim's outcomes in this flush, as parallel arrays. */
interface ClaimBatch {
  claim_id: string;
  org_id: string;
  endpoint_id: string;
  attempted_at: string;
  indexes: number[];
  event_ids: string[];
  seqs: number[];
  event_types: string[];
  outcomes: string[];
  http_status: Array<number | null>;
  latency_ms: Array<number | null>;
  failure_class: Array<string | null>;
  detail: Array<string | null>;
}

/** The outcomes of `batch` grouped by claim, as the rows written for them. */
function batchesByClaim(batch: Outcome[]): Map<string, ClaimBatch> {
  const claims = new Map<string, ClaimBatch>();
  for (const o of batch) {
    let c = claims.get(o.claimId);
    if (!c) {
      claims.set(o.claimId, (c = {
        claim_id: o.claimId, org_id: o.orgId, endpoint_id: o.endpointId, attempted_at: o.attemptedAt.toISOString(),
        indexes: [], event_ids: [], seqs: [], event_types: [], outcomes: [], http_status: [], latency_ms: [], failure_class: [], detail: [],
      }));
    }
    c.indexes.push(o.index);
    c.event_ids.push(o.auditEventId);
    c.seqs.push(o.eventSeq);
    c.event_types.push(o.eventType);
    c.outcomes.push(o.outcome);
    c.http_status.push(o.httpStatus ?? null);
    c.latency_ms.push(o.latencyMs === undefined ? null : Math.round(o.latencyMs));
    c.failure_class.push(o.failureClass ?? null);
    c.detail.push(o.detail ?? null);
  }
  return claims;
}

/** Per endpoint: whether a success happened, and the failures after the last success. */
function runsByEndpoint(batch: Outcome[]): Map<string, { orgId: string; reset: boolean; trailingFailures: number }> {
  const runs = new Map<string, { orgId: string; reset: boolean; trailingFailures: number }>();
  for (const o of batch) {
    if (o.outcome === 'skipped' || o.outcome === 'unknown') continue;
    let run = runs.get(o.endpointId);
    if (!run) runs.set(o.endpointId, (run = { orgId: o.orgId, reset: false, trailingFailures: 0 }));
    if (o.outcome === 'succeeded') {
      run.reset = true;
      run.trailingFailures = 0;
    } else run.trailingFailures += 1;
  }
  return runs;
}
