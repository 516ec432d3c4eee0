import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { GENESIS_HASH, sealBatch, toAuditTimestamp, type AuditRecordInput, type ChainHead, type ChainTasks, type SealBatchResult } from './chain/index.ts';
import { advanceHeads, deadLetter, lockHeads, oldestPosition, outboxOrganizations, sealRows, takeAndRender, type RenderedBatch } from './sealer-sql.ts';
import { failureKind } from './failure-kind.ts';

/** Longest pause between attempts while sealing keeps failing (back-off doubles from `intervalMs`). */
const MAX_BACKOFF_MS = 30_000;

/**
 * What this process's sealer has seen lately. Shape: `{ state: 'ok' | 'failing',
 * consecutiveFailures, lastError: string | null, lastFailureAt: ISO 8601 | null,
 * lastSuccessAt: ISO 8601 | null }` — `failing` after a drain that threw (transient failures:
 * database unreachable, restarting, overloaded), until the next drain that succeeds.
 */
export interface SealerState {
  state: 'ok' | 'failing';
  consecutiveFailures: number;
  lastError: string | null;
  lastFailureAt: string | null;
  lastSuccessAt: string | null;
}

/** Which rows one sealing transaction takes: `limit` oldest, of one organization or of all; hashing in-line or not. */
interface Take {
  limit: number;
  orgId?: string;
  inline?: boolean;
}

/** Tuning of the sealer. */
export interface SealerOptions {
  /** Outbox rows taken per transaction. Default 2000. */
  batchSize?: number;
  /** Polling interval in milliseconds while there is work (and after a {@link AuditSealer.wake}). Default 200. */
  intervalMs?: number;
  /**
   * Longest pause between polls while the outbox stays empty, in milliseconds: after each empty poll
   * the pause doubles from `intervalMs` up to this. Default 2000. An append in this process wakes
   * the sealer (`wake()`), so its events are sealed within ~`intervalMs` of their commit whatever
   * the pause; only events appended by another process wait up to this long (that process's own
   * sealer takes them sooner).
   */
  maxIdleMs?: number;
  /** An organization's batch at least this long is hashed in the worker pool; shorter ones in-line. Default 256. */
  poolThreshold?: number;
  /** The chain's tasks on `core.workers` (the kernel's pool, started on first need; closed by the kernel, not the sealer). */
  pool?: ChainTasks;
  /**
   * Start the pool at `start()` and warm every thread in the background, so the first large
   * batch does not wait 0.5–1 s for thread start-up. Default: true on a PostgreSQL server (where
   * heavy ingestion happens), false on embedded PGlite (single process, small deployments and
   * tests, which then start the pool only on first need). A failed warm-up is logged and the
   * pool is used (and retried by piscina) as usual.
   */
  warmPool?: boolean;
  /** Called after each committed transaction with the heads it advanced (checkpoint signing). */
  onSealed?: (heads: Array<ChainHead & { sealedAt: string }>) => Promise<void>;
}

/**
 * Drains `core.audit_outbox` into the per-organization hash chain (`core.audit_events`), one
 * transaction per batch: take rows `FOR UPDATE SKIP LOCKED` (several processes may run sealers)
 * while PostgreSQL renders each organization's records as JSON text, in one statement
 * (`./sealer-sql.ts`); lock the organizations' chain heads (in id order, so sealers never
 * deadlock; two statements); hash the organizations concurrently (the worker pool parses the
 * text, so this thread builds no record objects; short batches in-line); move the rows from the
 * outbox into the chain with one DELETE … RETURNING / INSERT statement; advance the heads with
 * one — five statements per batch, none per row.
 * A crash at any point leaves either the outbox rows or the sealed rows — never both, never neither.
 *
 * Poison isolation: when a batch fails for a reason that is not transient (see
 * `./failure-kind.ts`), the sealer seals organization by organization in their own transactions
 * (hashing in-line), so one organization's bad event never holds back another's; an organization
 * whose transaction fails because of its events' data is bisected — the oldest half of its rows,
 * then half of that — until one event fails alone; that event moves to `core.audit_dead_letters`
 * with the reason, and sealing goes on. Transient and systemic failures (database unreachable,
 * missing table, permissions) are retried with doubling back-off (at most 30 s) and dead-letter nothing.
 * @see docs/audit.md
 */
export class AuditSealer {
  private timer?: NodeJS.Timeout;
  /** When the pending poll is due (epoch ms), while one is scheduled. */
  private dueAt = 0;
  /** The pause before the next poll after an empty one (doubles up to `maxIdleMs`). */
  private idleMs = 0;
  private tick?: () => Promise<void>;
  /** `intervalMs` with its default. */
  private readonly interval: number;
  private running?: Promise<number>;
  private stopped = false;
  private draining: Promise<unknown> = Promise.resolve();
  private readonly status: SealerState = { state: 'ok', consecutiveFailures: 0, lastError: null, lastFailureAt: null, lastSuccessAt: null };

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SealerOptions = {},
  ) {
    this.interval = options.intervalMs ?? 200;
  }

  /** Starts polling the outbox; warms the worker pool first when `warmPool` (see {@link SealerOptions}). */
  start(): void {
    if (this.options.pool && (this.options.warmPool ?? this.db.kind === 'pg')) {
      this.options.pool.warm().catch((err: unknown) => {
        // A shutdown right after start() (core.workers closed, threads still starting): expected, not a fault.
        if (!this.stopped) this.logger.warn({ err }, 'audit worker pool warm-up failed');
      });
    }
    const interval = this.interval;
    const maxIdle = Math.max(interval, this.options.maxIdleMs ?? 2000);
    this.idleMs = interval;
    this.tick = async () => {
      this.timer = undefined;
      if (this.stopped) return;
      const sealed = await this.drain().catch(() => 0);
      if (this.stopped) return;
      let pause: number;
      if (this.status.consecutiveFailures > 0) {
        pause = Math.min(interval * 2 ** this.status.consecutiveFailures, MAX_BACKOFF_MS);
      } else if (sealed > 0) {
        pause = this.idleMs = interval;
      } else {
        pause = this.idleMs;
        this.idleMs = Math.min(this.idleMs * 2, maxIdle);
      }
      this.schedule(pause);
    };
    this.schedule(interval);
  }

  /**
   * Something was appended to the outbox (or is about to be committed): poll within `intervalMs`
   * instead of waiting out an idle pause, and start the idle back-off over. Not while sealing is
   * failing (its own back-off stands) or after `stop()`.
   */
  wake(): void {
    if (this.stopped || !this.tick || this.status.consecutiveFailures > 0) return;
    this.idleMs = this.interval;
    // A poll already running schedules the next one from the reset pause itself.
    if (this.timer && this.dueAt > Date.now() + this.interval) this.schedule(this.interval);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.timer = setTimeout(() => void this.tick!(), ms);
  }

  /** This process's sealer state (a copy). @see {@link SealerState} */
  state(): SealerState {
    return { ...this.status };
  }

  /** Seals until the outbox is empty (or only holds rows another sealer has locked). @returns events sealed. */
  async drain(): Promise<number> {
    // Serialized: a second caller (a test, shutdown) waits for the poller's whole drain, not just its
    // current batch — otherwise it could find every row locked by that batch and return 0 early.
    const run = this.draining.then(() => this.drainNow()).then(
      (n) => {
        Object.assign(this.status, { state: 'ok', consecutiveFailures: 0, lastSuccessAt: this.clock.now().toISOString() });
        return n;
      },
      (err: unknown) => {
        // Logged once when failing starts, then every 10th attempt: a stalled database must not flood the log.
        if (this.status.consecutiveFailures % 10 === 0) this.logger.error({ err, consecutiveFailures: this.status.consecutiveFailures + 1 }, 'audit sealing failed; the outbox keeps the events');
        Object.assign(this.status, { state: 'failing', consecutiveFailures: this.status.consecutiveFailures + 1, lastError: String((err as Error)?.message ?? err), lastFailureAt: this.clock.now().toISOString() });
        throw err;
      },
    );
    this.draining = run.catch(() => 0);
    return run;
  }

  private async drainNow(): Promise<number> {
    while (this.running) await this.running.catch(() => 0);
    let total = 0;
    for (;;) {
      this.running = this.sealOnce();
      const n = await this.running.finally(() => (this.running = undefined));
      total += n;
      if (n === 0) return total;
    }
  }

  /**
   * Stops polling and seals what is left (graceful shutdown; the kernel closes `core.workers`
   * after this). Never throws: when the last drain fails (database gone), the events stay in the
   * outbox for the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.drain().catch(() => 0);
  }

  /**
   * Seals at most `batchSize` outbox rows in one transaction; when that fails for a reason that is
   * not transient, seals organization by organization instead (see the class comment).
   * @returns how many events were sealed.
   * @throws a transient failure, or a systemic one when no organization could be sealed.
   */
  async sealOnce(): Promise<number> {
    try {
      return await this.sealTransaction({ limit: this.batchSize });
    } catch (err) {
      if (failureKind(err) === 'transient') throw err;
      this.logger.warn({ err }, 'audit sealing batch failed; sealing organization by organization');
      return this.sealIsolated();
    }
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 2000;
  }

  /** Every organization in the outbox on its own; one's failure does not stop the others. */
  private async sealIsolated(): Promise<number> {
    let total = 0;
    let failure: unknown;
    for (const orgId of await outboxOrganizations(this.db.knex)) {
      try {
        total += await this.sealOrganization(orgId);
      } catch (err) {
        failure ??= err;
        this.logger.error({ err, orgId }, 'audit sealing failed for one organization; the others go on');
      }
    }
    if (total === 0 && failure) throw failure;
    return total;
  }

  /**
   * Seals one organization's outbox rows, bisecting on deterministic failure down to the one event
   * that fails alone, which is dead-lettered.
   * @returns events sealed. @throws a transient or systemic failure.
   */
  private async sealOrganization(orgId: string): Promise<number> {
    let limit = this.batchSize;
    let total = 0;
    for (;;) {
      const take: Take & { taken?: string } = { limit, orgId, inline: true };
      try {
        const n = await this.sealTransaction(take);
        if (n === 0) return total;
        total += n;
      } catch (err) {
        // Only a failure caused by the events' data narrows down to one event; others are retried later.
        if (failureKind(err) !== 'data') throw err;
        if (limit > 1) {
          limit = Math.ceil(limit / 2);
          continue;
        }
        // The one event that failed alone; when even taking it failed, the organization's oldest.
        const position = take.taken ?? (await oldestPosition(this.db.knex, orgId));
        if (!position) throw err;
        await this.deadLetter(orgId, position, err);
        limit = this.batchSize;
      }
    }
  }

  private async deadLetter(orgId: string, position: string, err: unknown): Promise<void> {
    const reason = String((err as Error)?.message ?? err);
    const id = await this.db.transaction((trx) => deadLetter(trx, position, reason, this.clock.now().toISOString()));
    if (id) this.logger.error({ orgId, eventId: id, position, reason }, 'audit event cannot be sealed: moved to core.audit_dead_letters');
  }

  /**
   * One transaction: the rows `take` names sealed. Records the taken positions in `take.taken`
   * (comma-separated) before hashing, so a failure can name them.
   * @returns how many.
   */
  private async sealTransaction(take: Take & { taken?: string }): Promise<number> {
    const heads: Array<ChainHead & { sealedAt: string }> = [];
    const n = await this.db.transaction(async (trx) => {
      const batches = await takeAndRender(trx, take.limit, take.orgId);
      if (batches.length === 0) return 0;
      take.taken = batches.map((b) => b.positions).join(',');
      const sealedAt = toAuditTimestamp(this.clock.now());
      const prev = await lockHeads(trx, batches.map((b) => b.orgId), GENESIS_HASH);
      // Organizations are independent chains: their batches are hashed concurrently (pool threads).
      const results = await Promise.all(batches.map((b) => this.hash(prev.get(b.orgId)!, b, sealedAt, take.inline)));
      const taken = batches.reduce((sum, b) => sum + b.count, 0);
      const inserted = await sealRows(trx, batches.map((b) => b.positions), results, sealedAt);
      if (inserted !== taken) throw new Error(`audit sealer: sealed ${inserted} rows of ${taken} taken`);
      await advanceHeads(trx, results.map((r) => r.head), sealedAt);
      for (const r of results) heads.push({ ...r.head, sealedAt });
      return taken;
    });
    if (heads.length && this.options.onSealed) await this.options.onSealed(heads);
    return n;
  }

  /**
   * Hashes one organization's rendered batch from its locked head: in the pool (the worker parses
   * the JSON text and offsets `seq`) or, when short, in-line.
   */
  private async hash(head: ChainHead, batch: RenderedBatch, sealedAt: string, inline = false): Promise<SealBatchResult> {
    if (inline || !this.options.pool || batch.count < (this.options.poolThreshold ?? 256)) {
      const records = JSON.parse(batch.records) as AuditRecordInput[];
      for (const r of records) r.seq += head.seq;
      return sealBatch(head.chainHash, records, sealedAt);
    }
    return this.options.pool.sealJson(head.chainHash, batch.records, sealedAt, head.seq);
  }
}
