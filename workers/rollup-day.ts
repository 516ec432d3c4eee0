/**
 * Piscina task module: roll one organization's audit day file up (sign-in outcomes, event volumes,
 * behaviour) — `plugins/analytics/day-rollup.ts` over the file's records, countries looked up in
 * `geoip-country`'s offline database (loaded in the worker thread only, never on the main thread).
 * A pure function over plain data: day-file bytes in, rollups out; nothing is read from a clock or
 * a network.
 *
 * Loaded in worker threads through the bootstrap `./rollup-day.worker.mjs`.
 *
 * @see docs/api/audit-analytics.md "Rollups"
 */
import { createRequire } from 'node:module';
import { dayFileRecords, readDayFileMeta } from '../core/audit/chain/day-file.ts';
import { DayRollupBuilder, type OrgDayRollups } from '../plugins/analytics/day-rollup.ts';
import { toActivity, type ActivityRow } from '../plugins/analytics/activity-row.ts';

/** One task: `{ bytes }`, a whole Parquet day file (transferred, not copied). */
export interface RollupDayTask {
  bytes: Uint8Array;
}

/** The task's answer: the file's organization and day, and its {@link OrgDayRollups}. */
export interface RollupDayResult {
  orgId: string;
  day: string;
  rollups: OrgDayRollups;
}

interface GeoIp {
  lookup(ip: string): { country?: string } | null;
}
let geoip: GeoIp | undefined;

/** ISO 3166-1 alpha-2 country of an IP address from the offline database, or undefined. */
export function countryOf(ip: string): string | undefined {
  geoip ??= createRequire(import.meta.url)('geoip-country') as GeoIp;
  try {
    return geoip.lookup(ip)?.country || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Roll one day file up, a row group at a time.
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

/** A forensic scan: `{ bytes }` of a day file, and the end user asked for (`email` lower case) within `appGroupId`. */
export interface ForensicDayTask {
  bytes: Uint8Array;
  appGroupId: string;
  email: string;
}

/**
 * The end user's logins, failed attempts and signups in one day file (as the hot end-user store
 * would hold them), newest first: the forensic trail of days no longer in the hot store.
 * @throws DayFileFormatError when the bytes are not an Aerie day file.
 */
export async function forensicDay(task: ForensicDayTask): Promise<ActivityRow[]> {
  const rows: ActivityRow[] = [];
  for await (const group of dayFileRecords(task.bytes)) {
    for (const record of group) {
      const row = toActivity(record);
      if (row && row.appGroupId === task.appGroupId && row.email === task.email) rows.push(row);
    }
  }
  return rows.reverse();
}
