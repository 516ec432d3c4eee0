import type { Logger } from 'pino';
import type { AuditService, Clock, Database } from '../../core/index.ts';

/** Consecutive failures that disable an endpoint. @see docs/api/webhooks.md "Delivery" */
export const BREAKER_THRESHOLD = 20;

/** What became of one delivery. */
export interface Outcome {
  deliveryId: string;
  orgId: string;
  endpointId: string;
  outcome: 'succeeded' | 'failed' | 'skipped';
  httpStatus?: number;
  latencyMs?: number;
  failureClass?: string;
  detail?: string;
}

/**
 * Writes delivery outcomes and moves the endpoints' failure counters, many per transaction: while
 * one flush runs, the next outcomes gather, so the database work per delivery shrinks as the rate
 * grows. Per endpoint, outcomes count in the order they completed: a success resets the counter, and
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

  constructor(
    private readonly db: Database,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

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

  private async drain(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0, 1000);
      try {
        await this.flush(batch);
      } catch (err) {
        // The attempts stay `sending` (and turn `unknown` later): never re-sent, never lost silently.
        this.logger.error({ err, deliveries: batch.length }, 'recording webhook outcomes failed');
      }
      this.settled += batch.length;
      this.waiters = this.waiters.filter((w) => (w.upTo <= this.settled ? (w.resolve(), false) : true));
    }
  }

  private async flush(batch: Outcome[]): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (trx) => {
      // Arrays, not a VALUES list: eight parameters whatever the batch size.
      await trx.raw(
        `UPDATE webhooks.deliveries AS d SET outcome = v.outcome, http_status = v.http_status, latency_ms = v.latency_ms,
           failure_class = v.failure_class, detail = v.detail, completed_at = ?
         FROM unnest(?::text[], ?::uuid[], ?::text[], ?::int[], ?::int[], ?::text[], ?::text[])
           AS v(id, org_id, outcome, http_status, latency_ms, failure_class, detail)
         WHERE d.id = v.id AND d.org_id = v.org_id`,
        [now, batch.map((o) => o.deliveryId), batch.map((o) => o.orgId), batch.map((o) => o.outcome), batch.map((o) => o.httpStatus ?? null),
          batch.map((o) => (o.latencyMs === undefined ? null : Math.round(o.latencyMs))), batch.map((o) => o.failureClass ?? null), batch.map((o) => o.detail ?? null)] as never[],
      );
      const resets: Array<[string, string]> = [];
      for (const [endpointId, run] of runsByEndpoint(batch)) {
        if (run.trailingFailures === 0) {
          if (run.reset) resets.push([run.orgId, endpointId]);
          continue;
        }
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
      if (resets.length) await trx('webhooks.endpoints').whereIn(['orgId', 'id'], resets).where('consecutiveFailures', '>', 0).update({ consecutiveFailures: 0 });
    });
  }
}

/** Per endpoint: whether a success happened, and the failures after the last success. */
function runsByEndpoint(batch: Outcome[]): Map<string, { orgId: string; reset: boolean; trailingFailures: number }> {
  const runs = new Map<string, { orgId: string; reset: boolean; trailingFailures: number }>();
  for (const o of batch) {
    if (o.outcome === 'skipped') continue;
    let run = runs.get(o.endpointId);
    if (!run) runs.set(o.endpointId, (run = { orgId: o.orgId, reset: false, trailingFailures: 0 }));
    if (o.outcome === 'succeeded') {
      run.reset = true;
      run.trailingFailures = 0;
    } else run.trailingFailures += 1;
  }
  return runs;
}
