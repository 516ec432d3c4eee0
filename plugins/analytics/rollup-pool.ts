import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ForensicDayTask, RollupDayResult, RollupDayTask } from '../../workers/rollup-day.ts';
import type { ActivityRow } from './activity-row.ts';

/** Absolute path of the rollup worker bootstrap. */
export const ROLLUP_DAY_WORKER = fileURLToPath(new URL('../../workers/rollup-day.worker.mjs', import.meta.url));

/** Runs the rollup task: the worker pool's, or another function of the same contract. */
export type RollupFn = (bytes: Uint8Array) => Promise<RollupDayResult>;
/** Runs the forensic scan of one day file (`workers/rollup-day.ts` `forensicDay`). */
export type ForensicFn = (bytes: Uint8Array, who: { appGroupId: string; email: string }) => Promise<ActivityRow[]>;

/**
 * A piscina pool over `workers/rollup-day.ts`. One thread by default (a nightly background job that
 * leaves the cores to requests), started on first use and stopped after `idleTimeout` ms idle; the
 * day file's bytes are transferred to the thread, not copied.
 * @returns `{ rollup, forensic, close }`; after `close()` both reject with "rollup pool is closed".
 * @see docs/api/audit-analytics.md "Rollups"
 */
export function createRollupPool(options: { maxThreads?: number; idleTimeout?: number } = {}): { rollup: RollupFn; forensic: ForensicFn; close(): Promise<void> } {
  let piscina: Piscina | undefined;
  let stopped = false;
  const run = <T>(task: RollupDayTask | ForensicDayTask, name: string): Promise<T> => {
    if (stopped) return Promise.reject(new Error('rollup pool is closed'));
    piscina ??= new Piscina({ filename: ROLLUP_DAY_WORKER, minThreads: 0, maxThreads: options.maxThreads ?? 1, idleTimeout: options.idleTimeout ?? 10_000 });
    const owned = task.bytes.byteOffset === 0 && task.bytes.byteLength === task.bytes.buffer.byteLength ? task.bytes : task.bytes.slice();
    return piscina.run({ ...task, bytes: owned }, { name, transferList: [owned.buffer as ArrayBuffer] });
  };
  return {
    rollup: (bytes) => run<RollupDayResult>({ bytes }, 'default'),
    forensic: (bytes, who) => run<ActivityRow[]>({ bytes, ...who }, 'forensicDay'),
    close: async () => {
      stopped = true;
      await piscina?.close();
    },
  };
}
