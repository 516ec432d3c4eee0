import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { RollupDayResult, RollupDayTask } from '../../workers/rollup-day.ts';

/** Absolute path of the rollup worker bootstrap. */
export const ROLLUP_DAY_WORKER = fileURLToPath(new URL('../../workers/rollup-day.worker.mjs', import.meta.url));

/** Runs the rollup task: the worker pool's, or another function of the same contract. */
export type RollupFn = (bytes: Uint8Array) => Promise<RollupDayResult>;

/**
 * A piscina pool over `workers/rollup-day.ts`. One thread by default (a nightly background job that
 * leaves the cores to requests), started on first use and stopped after `idleTimeout` ms idle; the
 * day file's bytes are transferred to the thread, not copied.
 * @returns `{ rollup, close }`; after `close()` `rollup` rejects with "rollup pool is closed".
 * @see docs/api/audit-analytics.md "Rollups"
 */
export function createRollupPool(options: { maxThreads?: number; idleTimeout?: number } = {}): { rollup: RollupFn; close(): Promise<void> } {
  let piscina: Piscina<RollupDayTask, RollupDayResult> | undefined;
  let stopped = false;
  return {
    rollup: async (bytes) => {
      if (stopped) throw new Error('rollup pool is closed');
      piscina ??= new Piscina<RollupDayTask, RollupDayResult>({ filename: ROLLUP_DAY_WORKER, minThreads: 0, maxThreads: options.maxThreads ?? 1, idleTimeout: options.idleTimeout ?? 10_000 });
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      return piscina.run({ bytes: owned }, { transferList: [owned.buffer as ArrayBuffer] });
    },
    close: async () => {
      stopped = true;
      await piscina?.close();
    },
  };
}
