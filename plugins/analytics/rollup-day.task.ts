/**
 * Worker task `analytics.rollup-day` (core.workers, registered by `./rollup-tasks.ts`): rolls one
 * organization's audit day file up (sign-in outcomes, event volumes, behaviour) —
 * `./day-rollup.ts` over the file's records, countries looked up offline (`./geoip-country.ts`).
 * A pure function over plain data: day-file bytes in, rollups out; nothing is read from a clock or
 * a network.
 *
 * @see docs/api/audit-analytics.md "Rollups"
 */
import { dayFileRecords, readDayFileMeta } from '../../core/worker-api.ts';
import { DayRollupBuilder, type OrgDayRollups } from './day-rollup.ts';
import { countryOf } from './geoip-country.ts';

/** One task: `{ bytes }`, a whole Parquet day file (moved to the thread, not copied). */
export interface RollupDayTask {
  bytes: Uint8Array;
}

/** The task's answer: the file's organization and day, and its {@link OrgDayRollups}. */
export interface RollupDayResult {
  orgId: string;
  day: string;
  rollups: OrgDayRollups;
}

/**
 * Rolls one day file up, a row group at a time.
 * @param task - {@link RollupDayTask}.
 * @returns {@link RollupDayResult}.
 * @throws DayFileFormatError when the bytes are not an Aerie day file.
 */
export default async function rollupDay(task: RollupDayTask): Promise<RollupDayResult> {
  const meta = await readDayFileMeta(task.bytes);
  const builder = new DayRollupBuilder(countryOf);
  for await (const group of dayFileRecords(task.bytes)) builder.add(group); // one row group's records at a time
  return { orgId: meta.orgId, day: meta.day, rollups: builder.result(meta.day) };
}
