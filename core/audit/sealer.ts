import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { GENESIS_HASH, sealBatch, toAuditTimestamp, type AuditRecordInput, type ChainHead, type HashPool, type SealBatchResult } from './chain/index.ts';

/** Tuning of the sealer. */
export interface SealerOptions {
  /** Outbox rows taken per transaction. Default 2000. */
  batchSize?: number;
  /** Idle polling interval in milliseconds. Default 200. */
  intervalMs?: number;
  /** An organization's batch at least this long is hashed in the worker pool; shorter ones in-line. Default 256. */
  poolThreshold?: number;
  /** Creates the worker pool on first need (tests and small deployments may never need it). */
  pool?: () => HashPool;
  /** Called after each committed transaction with the heads it advanced (checkpoint signing). */
  onSealed?: (heads: Array<ChainHead & { sealedAt: string }>) => Promise<void>;
}

interface OutboxRow {
  position: number;
  id: string;
  orgId: string;
  eventType: string;
  occurredAt: Date;
  actorType: string;
  actorId: string;
  appGroupId: string | null;
  businessData: Record<string, unknown>;
}

/**
 * Drains `core.audit_outbox` into the per-organization hash chain (`core.audit_events`), one
 * transaction per batch: take rows `FOR UPDATE SKIP LOCKED` (several processes may run sealers),
 * lock each organization's chain head (in id order, so sealers never deadlock), hash, insert the
 * sealed rows with one statement per organization, advance the heads, delete the drained rows.
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

  /** Starts polling the outbox. */
  start(): void {
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
    await this.pool?.close();
  }

  /** One transaction: at most `batchSize` outbox rows sealed. @returns how many. */
  async sealOnce(): Promise<number> {
    const heads: Array<ChainHead & { sealedAt: string }> = [];
    const n = await this.db.transaction(async (trx) => {
      const rows = (await trx('core.audit_outbox').select('*').orderBy('position').limit(this.options.batchSize ?? 2000).forUpdate().skipLocked()) as OutboxRow[];
      if (rows.length === 0) return 0;
      const sealedAt = toAuditTimestamp(this.clock.now());
      const byOrg = new Map<string, OutboxRow[]>();
      for (const row of rows) (byOrg.get(row.orgId) ?? byOrg.set(row.orgId, []).get(row.orgId)!).push(row);
      for (const orgId of [...byOrg.keys()].sort()) {
        const head = await this.lockHead(trx, orgId);
        const records = byOrg.get(orgId)!.map((row, i) => toRecord(row, head.seq + 1 + i));
        const result = await this.hash(head.chainHash, records, sealedAt);
        await trx('core.audit_events').insert(records.map((r, i) => ({
          id: r.id, orgId, seq: r.seq, eventType: r.eventType, occurredAt: r.occurredAt, actorType: r.actor.type, actorId: r.actor.id,
          appGroupId: r.appGroupId ?? null, businessData: JSON.stringify(r.businessData), payloadHash: result.sealed[i].payloadHash,
          prevHash: result.sealed[i].prevHash, chainHash: result.sealed[i].chainHash, sealedAt,
        })));
        await trx('core.audit_heads').where({ orgId }).update({ seq: result.head.seq, chainHash: result.head.chainHash, updatedAt: new Date(sealedAt) });
        heads.push({ ...result.head, sealedAt });
      }
      await trx('core.audit_outbox').whereIn('position', rows.map((r) => r.position)).delete();
      return rows.length;
    });
    if (heads.length && this.options.onSealed) await this.options.onSealed(heads);
    return n;
  }

  private async lockHead(trx: Knex.Transaction, orgId: string): Promise<ChainHead> {
    await trx.raw('insert into core.audit_heads (org_id, seq, chain_hash, updated_at) values (?, 0, ?, now()) on conflict (org_id) do nothing', [orgId, GENESIS_HASH]);
    const head = await trx('core.audit_heads').where({ orgId }).forUpdate().first();
    return { orgId, seq: Number(head.seq), chainHash: head.chainHash };
  }

  private hash(prevHash: string, records: AuditRecordInput[], sealedAt: string): Promise<SealBatchResult> | SealBatchResult {
    if (!this.options.pool || records.length < (this.options.poolThreshold ?? 256)) return sealBatch(prevHash, records, sealedAt);
    this.pool ??= this.options.pool();
    return this.pool.seal(prevHash, records, sealedAt);
  }
}

function toRecord(row: OutboxRow, seq: number): AuditRecordInput {
  return {
    id: row.id, orgId: row.orgId, seq, eventType: row.eventType, occurredAt: toAuditTimestamp(new Date(row.occurredAt)),
    actor: { type: row.actorType as AuditRecordInput['actor']['type'], id: row.actorId },
    ...(row.appGroupId ? { appGroupId: row.appGroupId } : {}), businessData: row.businessData as AuditRecordInput['businessData'],
  };
}
