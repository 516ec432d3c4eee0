import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { GENESIS_HASH, sealBatch, toAuditTimestamp, type AuditRecordInput, type ChainHead, type HashPool, type SealBatchResult } from './chain/index.ts';
import { advanceHeads, lockHeads, sealRows, takeAndRender, type RenderedBatch } from './sealer-sql.ts';

/** Tuning of the sealer. */
export interface SealerOptions {
  /** Outbox rows taken per transaction. Default 2000. */
  batchSize?: number;
  /** Idle polling interval in milliseconds. Default 200. */
  intervalMs?: number;
  /** An organization's batch at least this long is hashed in the worker pool; shorter ones in-line. Default 256. */
  poolThreshold?: number;
  /** Creates the worker pool (at `start()` when `warmPool`, else on first need). */
  pool?: () => HashPool;
  /**
   * Create the pool at `start()` and warm every thread in the background, so the first large
   * batch does not wait 0.5–1 s for thread start-up. Default: true on a PostgreSQL server (where
   * heavy ingestion happens), false on embedded PGlite (single process, small deployments and
   * tests, which then create the pool only on first need). A failed warm-up is logged and the
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
 * @see ARCHITECTURE.md "The audit chain", spec 01 "Audit"
 */
export class AuditSealer {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private pool?: HashPool;
  private stopped = false;
  private draining: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SealerOptions = {},
  ) {}

  /** Starts polling the outbox; warms the hash pool first when `warmPool` (see {@link SealerOptions}). */
  start(): void {
    if (this.options.pool && (this.options.warmPool ?? this.db.kind === 'pg')) {
      this.hashPool().warm?.().catch((err: unknown) => {
        // stop() right after start() terminates threads still starting: expected, not a fault.
        if (!this.stopped) this.logger.warn({ err }, 'audit hash pool warm-up failed');
      });
    }
    const tick = async () => {
      if (this.stopped) return;
      try {
        await this.drain();
      } catch (err) {
        this.logger.error({ err }, 'audit sealer batch failed; the outbox keeps the events');
      }
      if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs ?? 200);
    };
    this.timer = setTimeout(tick, this.options.intervalMs ?? 200);
  }

  /** Seals until the outbox is empty (or only holds rows another sealer has locked). @returns events sealed. */
  async drain(): Promise<number> {
    // Serialized: a second caller (a test, shutdown) waits for the poller's whole drain, not just its
    // current batch — otherwise it could find every row locked by that batch and return 0 early.
    const run = this.draining.then(() => this.drainNow());
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

  /** Stops polling, seals what is left, and stops the worker pool (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.drain();
    // A drain after stop (a second stop at shutdown) creates a fresh pool on need and closes it.
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  /** One transaction: at most `batchSize` outbox rows sealed. @returns how many. */
  async sealOnce(): Promise<number> {
    const heads: Array<ChainHead & { sealedAt: string }> = [];
    const n = await this.db.transaction(async (trx) => {
      const batches = await takeAndRender(trx, this.options.batchSize ?? 2000);
      if (batches.length === 0) return 0;
      const sealedAt = toAuditTimestamp(this.clock.now());
      const prev = await lockHeads(trx, batches.map((b) => b.orgId), GENESIS_HASH);
      // Organizations are independent chains: their batches are hashed concurrently (pool threads).
      const results = await Promise.all(batches.map((b) => this.hash(prev.get(b.orgId)!, b, sealedAt)));
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
  private async hash(head: ChainHead, batch: RenderedBatch, sealedAt: string): Promise<SealBatchResult> {
    if (!this.options.pool || batch.count < (this.options.poolThreshold ?? 256)) {
      const records = JSON.parse(batch.records) as AuditRecordInput[];
      for (const r of records) r.seq += head.seq;
      return sealBatch(head.chainHash, records, sealedAt);
    }
    return this.hashPool().sealJson(head.chainHash, batch.records, sealedAt, head.seq);
  }

  private hashPool(): HashPool {
    this.pool ??= this.options.pool!();
    return this.pool;
  }
}
