import type { Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { COMPLETE_AFTER_MS, type DayFileArchive } from './day-files.ts';
import { nightlyJob, scheduleNightly } from './nightly-job.ts';

/** The nightly day-file compaction job's name. @see docs/audit.md */
export const COMPACTION_JOB = 'audit.compact-days';

const SPEC = { name: COMPACTION_JOB, runsTable: 'audit.compaction_runs', afterMidnightMs: COMPLETE_AFTER_MS };

/**
 * `audit.compact-days`, at 00:05 UTC (a nightly job, `./nightly-job.ts`): compacts every
 * organization's completed days without a day file ({@link DayFileArchive.compactPending}); a day
 * that failed makes the job throw after the others are done, so it is retried and completes later.
 * @see docs/audit.md "Archive: day files"
 */
export function compactionJob(deps: { db: Database; clock: Clock; jobs: JobsService; archive: DayFileArchive }): JobDefinition<Record<string, never>> {
  return nightlyJob(deps, {
    ...SPEC,
    run: async () => (await deps.archive.compactPending()).failed.map((f) => `${f.orgId} ${f.day}: ${f.error}`),
  });
}

/**
 * Queues the next nightly run at boot (the plugin's `onStarted`). A job left queued by an earlier
 * process whose time has passed (the server was down at 00:05) runs now, catching up.
 */
export async function scheduleCompaction(jobs: JobsService, clock: Clock): Promise<void> {
  await scheduleNightly(jobs, clock, SPEC);
}
