/**
 * Worker task `analytics.forensic-day` (core.workers, registered by `./rollup-tasks.ts`): one end
 * user's trail in one audit day file, for the days no longer in the hot end-user store.
 *
 * @see docs/api/audit-analytics.md
 */
import { dayFileRecords } from '../../core/worker-api.ts';
import { toActivity, type ActivityRow } from './activity-row.ts';

/** A forensic scan: `{ bytes }` of a day file (moved to the thread), and the end user asked for (`email` lower case) within `appGroupId`. */
export interface ForensicDayTask {
  bytes: Uint8Array;
  appGroupId: string;
  email: string;
}

/**
 * The end user's logins, failed attempts and signups in one day file (as the hot end-user store
 * would hold them), newest first.
 * @param task - {@link ForensicDayTask}.
 * @returns the rows, newest first.
 * @throws DayFileFormatError when the bytes are not an Aerie day file.
 */
export default async function forensicDay(task: ForensicDayTask): Promise<ActivityRow[]> {
  const rows: ActivityRow[] = [];
  for await (const group of dayFileRecords(task.bytes)) {
    for (const record of group) {
      const row = toActivity(record);
      if (row && row.appGroupId === task.appGroupId && row.email === task.email) rows.push(row);
    }
  }
  return rows.reverse();
}
