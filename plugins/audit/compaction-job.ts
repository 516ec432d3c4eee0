import type { JobsService } from '../../core/index.ts';
import { COMPLETE_AFTER_MS, type DayFileArchive } from './day-files.ts';
import { scheduleNightly } from './nightly-job.ts';

/** The nightly day-file compaction schedule's name. @see docs/audit.md */
export const COMPACTION_JOB = 'audit.compact-days';

/**
 * `audit.compact-days`, at 00:05 UTC (when yesterday is complete, {@link COMPLETE_AFTER_MS}): compacts
 * every organization's completed days without a day file ({@link DayFileArchive.compactPending}); a day
 * that failed makes the run throw after the others are done, so it is retried and completes later.
 * @see docs/audit.md "Archive: day files"
 */
export function scheduleCompaction(jobs: JobsService, archive: Pick<DayFileArchive, 'compactPending'>): void {
  scheduleNightly(jobs, COMPACTION_JOB, `${COMPLETE_AFTER_MS / 60_000} 0 * * *`,
    async () => (await archive.compactPending()).failed.map((f) => `${f.orgId} ${f.day}: ${f.error}`));
}
