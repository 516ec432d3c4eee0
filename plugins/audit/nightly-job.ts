import type { JobsService, ScheduleOptions } from '../../core/index.ts';

/**
 * The options of the nightly schedules (day files, retention, and the analytics rollups that read the
 * day files): a night missed while no process ran is caught up at the next start, and a run that
 * failed somewhere is retried 5 times from a minute on (doubling), the work already done being
 * skipped by then. @see docs/audit.md "Archive: day files", "Retention"
 */
export const NIGHTLY: ScheduleOptions = { catchUp: true, retryLimit: 5, retryDelaySeconds: 60, expireInSeconds: 3600 };

/**
 * Schedules nightly work `name` at `cron` (UTC) with {@link NIGHTLY}: `run` answers one line per
 * failure (an empty list when everything went through); when there is any, the run throws once the
 * rest is done, so `core.jobs` retries it.
 */
export function scheduleNightly(jobs: JobsService, name: string, cron: string, run: () => Promise<string[]>): void {
  jobs.schedule(name, cron, async () => {
    const failed = await run();
    if (failed.length > 0) throw new Error(`${name}: ${failed.length} failed: ${failed.join('; ')}`);
  }, NIGHTLY);
}
