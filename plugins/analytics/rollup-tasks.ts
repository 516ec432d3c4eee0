import type { Workers } from '../../core/index.ts';
import type { ActivityRow } from './activity-row.ts';
import type forensicDay from './forensic-day.task.ts';
import type rollupDay from './rollup-day.task.ts';
import type { RollupDayResult } from './rollup-day.task.ts';

/** Runs the rollup task: `core.workers`', or another function of the same contract. */
export type RollupFn = (bytes: Uint8Array) => Promise<RollupDayResult>;
/** Runs the forensic scan of one day file (`./forensic-day.task.ts`). */
export type ForensicFn = (bytes: Uint8Array, who: { appGroupId: string; email: string }) => Promise<ActivityRow[]>;

/**
 * Registers the plugin's worker tasks on `core.workers` — `analytics.rollup-day`
 * (`./rollup-day.task.ts`) and `analytics.forensic-day` (`./forensic-day.task.ts`) — and answers
 * them typed. The day file's bytes are moved to the thread, not copied: a view that does not span
 * its whole buffer is copied first, so the caller's other bytes stay.
 * @returns `{ rollup, forensic }`; both reject with `core.workers`' `closed` after shutdown.
 * @throws WorkerTaskError `duplicate_task` when they are already registered there.
 * @see docs/api/audit-analytics.md "Rollups"
 */
export function registerRollupTasks(workers: Workers): { rollup: RollupFn; forensic: ForensicFn } {
  const rollup = workers.register<typeof rollupDay>('analytics.rollup-day', new URL('./rollup-day.task.ts', import.meta.url));
  const forensic = workers.register<typeof forensicDay>('analytics.forensic-day', new URL('./forensic-day.task.ts', import.meta.url));
  const owned = (bytes: Uint8Array) => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());
  return {
    rollup: (bytes) => {
      const whole = owned(bytes);
      return rollup.run({ bytes: whole }, { transfer: [whole.buffer as ArrayBuffer] });
    },
    forensic: (bytes, who) => {
      const whole = owned(bytes);
      return forensic.run({ bytes: whole, ...who }, { transfer: [whole.buffer as ArrayBuffer] });
    },
  };
}
