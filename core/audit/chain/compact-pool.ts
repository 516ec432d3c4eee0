/**
 * The worker pool that compacts audit day files off the main thread (piscina over
 * `workers/compact-day.ts`, loaded through `workers/compact-day.worker.mjs`, the same bootstrap
 * pattern as the hash pool's).
 *
 * @see docs/audit.md ("Archive: day files")
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { CompactDayResult, CompactDayTask } from '../../../workers/compact-day.ts';

export type { CompactDayResult, CompactDayTask } from '../../../workers/compact-day.ts';

/** Absolute path of the compaction worker bootstrap. @see docs/audit.md */
export const COMPACT_DAY_WORKER = fileURLToPath(new URL('../../../workers/compact-day.worker.mjs', import.meta.url));

/**
 * A running compaction pool: `compact(task)` runs `workers/compact-day.ts` in a thread (same result,
 * same errors, rejected) — the task's `records` buffer is transferred to the thread when the view
 * spans its whole `ArrayBuffer` (as `dayRecordsNdjson` makes it), so it is detached (empty) in the
 * caller afterwards; any other view is copied; `close()` finishes queued tasks and stops the threads; after it `compact`
 * rejects with "compaction pool is closed".
 *
 * @see docs/audit.md
 */
export interface CompactPool {
  compact(task: CompactDayTask): Promise<CompactDayResult>;
  close(): Promise<void>;
}

/**
 * Start a piscina pool for day-file compaction. Threads start on demand and exit after
 * `idleTimeout` ms idle (compaction runs once a day, so none are kept warm).
 *
 * @param options - `maxThreads` (default 1: compaction is a background job and must leave the
 *   cores to requests and the sealer), `idleTimeout` in ms (default 10 000).
 * @returns a {@link CompactPool}; `close()` it at shutdown.
 * @throws RangeError when `maxThreads` < 1.
 * @see docs/audit.md
 */
export function createCompactPool(options: { maxThreads?: number; idleTimeout?: number } = {}): CompactPool {
  const maxThreads = options.maxThreads ?? 1;
  if (!Number.isInteger(maxThreads) || maxThreads < 1) throw new RangeError(`compaction pool: maxThreads must be >= 1, got ${maxThreads}`);
  let piscina: Piscina<CompactDayTask, CompactDayResult> | undefined;
  let stopped = false;
  return {
    compact: async (task) => {
      if (stopped) throw new Error('compaction pool is closed');
      piscina ??= new Piscina<CompactDayTask, CompactDayResult>({ filename: COMPACT_DAY_WORKER, minThreads: 0, maxThreads, idleTimeout: options.idleTimeout ?? 10_000 });
      const { buffer, byteLength } = task.records;
      const whole = buffer instanceof ArrayBuffer && byteLength === buffer.byteLength;
      return piscina.run(task, whole ? { transferList: [buffer] } : {});
    },
    close: async () => {
      stopped = true;
      await piscina?.close();
    },
  };
}
