/**
 * The audit chain's work on `core.workers`: sealing a batch (the sealer), rendering an ingestion
 * batch (batch ingestion with `audit.ingestThreads` > 0), compacting a day file (the audit
 * plugin's archive). The kernel registers the three tasks at boot; this module gives them typed.
 *
 * Parallelism is across organizations: one organization's batches depend on each other's head,
 * so the sealer keeps at most one task in flight per organization.
 *
 * @see docs/audit.md
 */
import type { Workers } from '../../workers/workers.types.ts';
import { GENESIS_HASH, type SealBatchResult } from './chain-hash.ts';
import { unpackSealResult } from './packed-result.ts';
import type { IngestRowProblem, RenderIngestOptions, RenderedIngest } from './ingest-rows.ts';
import type sealBatchTask from './seal-batch.task.ts';
import type renderIngestTask from './render-ingest.task.ts';
import type compactDayTask from './compact-day.task.ts';
import type { CompactDayResult, CompactDayTask } from './compact-day.task.ts';

export type { CompactDayResult, CompactDayTask } from './compact-day.task.ts';
export type { SealChainTask } from './seal-batch.task.ts';

/** Task names on `core.workers`. */
export const SEAL_BATCH_TASK = 'core.audit.seal-batch';
export const RENDER_INGEST_TASK = 'core.audit.render-ingest';
export const COMPACT_DAY_TASK = 'core.audit.compact-day';

// The warm-up task: one synthetic record, never stored.
const WARM_AT = '2000-01-01T00:00:00.000Z';
const WARM_RECORDS = JSON.stringify([{ id: 'warm-up', orgId: 'warm-up', seq: 1, eventType: 'pool.warm', occurredAt: WARM_AT, actor: { type: 'system', id: 'warm-up' }, businessData: {} }]);

/**
 * The chain's tasks, typed.
 *
 * - `sealJson(prevHash, recordsJson, sealedAt, seqOffset = 0)` — `sealBatch` in a thread over
 *   records held as JSON array text (outbox rows selected as `json_agg(...)::text`): the calling
 *   thread does no work per record. `seqOffset` is added to each parsed record's `seq` (text
 *   numbered 1, 2, … within its batch, offset by the organization's head `seq`). Results come
 *   back packed (`./packed-result.ts`) and are rebuilt into the `sealBatch` shape; same result,
 *   same errors (rejected).
 * - `renderIngest(rowsJson, options)` — `renderIngestRows` (`./ingest-rows.ts`) of checked events
 *   held as JSON array text: canonical `businessData` and its size check, version 2 payload
 *   hashes, COPY rows (moved back, not copied). Rejects as canonical JSON does on data the
 *   sealability check would refuse.
 * - `warm()` — start the pool and seal one synthetic record on each thread, so the first real
 *   batch waits for no start-up; resolves when all are ready.
 *
 * Each rejects as `core.workers` `run` does (`closed` after shutdown, the thread's exit).
 *
 * @see docs/audit.md
 */
export interface ChainTasks {
  sealJson(prevHash: string, recordsJson: string, sealedAt: string, seqOffset?: number): Promise<SealBatchResult>;
  renderIngest(rowsJson: string, options: RenderIngestOptions): Promise<RenderedIngest | IngestRowProblem>;
  warm(): Promise<void>;
}

/**
 * Registers the chain's three tasks on `workers` (the kernel does, once, at boot).
 *
 * @returns {@link ChainTasks} over them.
 * @throws WorkerTaskError `duplicate_task` when they are already registered there.
 * @see docs/audit.md
 */
export function registerChainTasks(workers: Workers): ChainTasks {
  const seal = workers.register<typeof sealBatchTask>(SEAL_BATCH_TASK, new URL('./seal-batch.task.ts', import.meta.url));
  const render = workers.register<typeof renderIngestTask>(RENDER_INGEST_TASK, new URL('./render-ingest.task.ts', import.meta.url));
  workers.register<typeof compactDayTask>(COMPACT_DAY_TASK, new URL('./compact-day.task.ts', import.meta.url));
  return {
    sealJson: async (prevHash, records, sealedAt, seqOffset = 0) => unpackSealResult(prevHash, await seal.run({ prevHash, sealedAt, records, seqOffset })),
    renderIngest: (rows, options) => render.run({ rows, options }),
    warm: () => workers.warm(SEAL_BATCH_TASK, { prevHash: GENESIS_HASH, sealedAt: WARM_AT, records: WARM_RECORDS }),
  };
}

/**
 * Compacts one day file on `core.workers` (the task `core.audit.compact-day`, `./compact-day.task.ts`):
 * the same bytes, SHA-256 and errors as in-line `encodeDayFile`. The task's `records` buffer is
 * moved to the thread when the view spans its whole `ArrayBuffer` (as `dayRecordsNdjson` makes
 * it), so it is detached (empty) in the caller afterwards; any other view is copied.
 *
 * @param workers - `core.workers` (the kernel registered the task there).
 * @param task - {@link CompactDayTask}.
 * @returns {@link CompactDayResult}.
 * @throws (rejects) as `encodeDayFile` (no records, a gap, several organizations); WorkerTaskError
 *   `closed` after shutdown.
 * @see docs/audit.md ("Archive: day files")
 */
export function compactDayFile(workers: Workers, task: CompactDayTask): Promise<CompactDayResult> {
  const { buffer, byteLength } = task.records;
  const whole = buffer instanceof ArrayBuffer && byteLength === buffer.byteLength;
  return workers.run<CompactDayResult>(COMPACT_DAY_TASK, task, whole ? { transfer: [buffer] } : {});
}
