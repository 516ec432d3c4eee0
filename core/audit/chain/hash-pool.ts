/**
 * The worker pool that seals audit batches off the main thread (piscina over
 * `workers/seal-chain.ts`, loaded through `workers/seal-chain.worker.mjs`).
 *
 * Parallelism is across organizations: one organization's batches depend on each other's head,
 * so the sealer keeps at most one task in flight per organization.
 *
 * @see docs/audit.md
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { AuditRecordInput } from './audit-record.ts';
import { GENESIS_HASH, type SealBatchResult } from './chain-hash.ts';
import { unpackSealResult, type PackedSealResult } from './packed-result.ts';
import type { SealChainTask } from '../../../workers/seal-chain.ts';
import type { IngestRowProblem, RenderIngestOptions, RenderedIngest } from './ingest-rows.ts';

// The warm-up task: one synthetic record, never stored.
const WARM_AT = '2000-01-01T00:00:00.000Z';
const WARM_RECORDS = JSON.stringify([{ id: 'warm-up', orgId: 'warm-up', seq: 1, eventType: 'pool.warm', occurredAt: WARM_AT, actor: { type: 'system', id: 'warm-up' }, businessData: {} }]);

/** Absolute path of the worker bootstrap. @see docs/audit.md */
export const SEAL_CHAIN_WORKER = fileURLToPath(new URL('../../../workers/seal-chain.worker.mjs', import.meta.url));

/**
 * Options of {@link createHashPool}: `minThreads` (default: `maxThreads`, so warmed threads stay
 * up between bursts — a thread's start-up, loading the task module (through tsx when run from the TypeScript sources), costs up to 0.5–1 s),
 * `maxThreads` (default 2), `idleTimeout` in ms before an idle thread above `minThreads` exits
 * (default 30 000).
 *
 * @see docs/audit.md
 */
export interface HashPoolOptions {
  minThreads?: number;
  maxThreads?: number;
  idleTimeout?: number;
}

/**
 * A running hash pool.
 *
 * - `seal(prevHash, records, sealedAt)` — run `sealBatch` in a worker; same result, same errors (rejected).
 *   The records travel as one JSON string: `JSON.stringify` costs the calling thread ~1–1.5 µs
 *   per record, structured-cloning the objects ~8 µs (serialize + deserialize). JSON is the
 *   payload's data model, so hashes are identical to in-line `sealBatch`;
 *   the one divergence is non-JSON input: NaN/±Infinity arrive as `null` instead of being
 *   rejected — outbox rows come from `jsonb`, which cannot hold them.
 * - `sealJson(prevHash, recordsJson, sealedAt, seqOffset = 0)` — the same for records already held
 *   as JSON array text (e.g. outbox rows selected as `json_agg(...)::text`): the calling thread
 *   does no work per record. `seqOffset` is added to each parsed record's `seq` (text numbered
 *   1, 2, … within its batch, offset by the organization's head `seq`).
 *   Results come back packed (`./packed-result.ts`) and are rebuilt into the `sealBatch` shape.
 * - `renderIngest(rowsJson, options)` — `renderIngestRows` (`./ingest-rows.ts`) of checked events
 *   held as JSON array text: canonical `businessData` and its size check, version 2 payload
 *   hashes, COPY rows (moved back, not copied) — the ingestion path's work before it takes the
 *   head lock. Rejects as canonical JSON does on data the sealability check would refuse.
 * - `warm()` — start every thread (piscina starts only `minThreads` itself, the others on demand)
 *   and run one tiny seal on each, so the first real batch waits for no start-up; resolves when
 *   all are ready. Optional in the interface so test doubles need not implement it.
 * - `close()` — finish queued tasks, then stop the threads (graceful shutdown).
 * - `destroy()` — stop the threads now; pending tasks reject.
 *   After either, `seal`/`sealJson`/`renderIngest` reject with "hash pool is closed".
 * - `threads` — the configured `maxThreads`.
 *
 * @see docs/audit.md
 */
export interface HashPool {
  seal(prevHash: string, records: AuditRecordInput[], sealedAt: string): Promise<SealBatchResult>;
  sealJson(prevHash: string, recordsJson: string, sealedAt: string, seqOffset?: number): Promise<SealBatchResult>;
  renderIngest(rowsJson: string, options: RenderIngestOptions): Promise<RenderedIngest | IngestRowProblem>;
  warm?(): Promise<void>;
  close(): Promise<void>;
  destroy(): Promise<void>;
  readonly threads: number;
}

/**
 * Start a piscina pool running `workers/seal-chain.ts`, under vitest as under `node --import tsx`.
 *
 * @param options - {@link HashPoolOptions}.
 * @returns a {@link HashPool}; call `close()` or `destroy()` when done, or the threads keep the process alive.
 * @throws RangeError when `minThreads` > `maxThreads` or either is < 1.
 * @example
 * const pool = createHashPool({ maxThreads: 2 });
 * const { sealed, head } = await pool.seal(GENESIS_HASH, records, toAuditTimestamp(clock.now()));
 * await pool.destroy();
 * @see docs/audit.md
 */
export function createHashPool(options: HashPoolOptions = {}): HashPool {
  const maxThreads = options.maxThreads ?? 2;
  const minThreads = options.minThreads ?? maxThreads;
  if (!Number.isInteger(maxThreads) || maxThreads < 1 || !Number.isInteger(minThreads) || minThreads < 1 || minThreads > maxThreads) {
    throw new RangeError(`hash pool: need 1 <= minThreads (${minThreads}) <= maxThreads (${maxThreads})`);
  }
  const piscina = new Piscina<SealChainTask, PackedSealResult>({
    filename: SEAL_CHAIN_WORKER,
    minThreads,
    maxThreads,
    idleTimeout: options.idleTimeout ?? 30_000,
    name: 'sealChainPacked',
  });
  // piscina would start new threads for a task posted after close/destroy; refuse instead.
  let stopped = false;
  const run = async (prevHash: string, records: string, sealedAt: string, seqOffset = 0) => {
    if (stopped) throw new Error('hash pool is closed');
    return unpackSealResult(prevHash, await piscina.run({ prevHash, sealedAt, records, seqOffset }));
  };
  return {
    threads: maxThreads,
    seal: async (prevHash, records, sealedAt) => run(prevHash, JSON.stringify(records), sealedAt),
    sealJson: (prevHash, recordsJson, sealedAt, seqOffset) => run(prevHash, recordsJson, sealedAt, seqOffset),
    renderIngest: async (rowsJson, renderOptions) => {
      if (stopped) throw new Error('hash pool is closed');
      return (await piscina.run({ rows: rowsJson, options: renderOptions } as never, { name: 'renderIngestTask' })) as unknown as RenderedIngest | IngestRowProblem;
    },
    // One task per thread, all in flight together: piscina starts a thread for each queued task.
    warm: async () => {
      await Promise.all(Array.from({ length: maxThreads }, () => run(GENESIS_HASH, WARM_RECORDS, WARM_AT)));
    },
    close: () => {
      stopped = true;
      return piscina.close();
    },
    destroy: () => {
      stopped = true;
      return piscina.destroy();
    },
  };
}
