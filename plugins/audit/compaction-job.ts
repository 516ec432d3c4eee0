import type { Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { secondsUntilNextRun, utcDay, type DayFileArchive } from './day-files.ts';

/** The nightly day-file compaction job's name. @see docs/audit.md */
export const COMPACTION_JOB = 'audit.compact-days';

/**
 * `audit.compact-days`, after midnight UTC: queues the next night's run — once per UTC day, claimed
 * in `audit.compaction_runs` in the same transaction, so duplicates (one queued per boot) never
 * multiply — then compacts every organization's completed days without a day file
 * ({@link DayFileArchive.compactPending}). When a day failed, the job throws after the others
 * are done, so `core.jobs` retries it (with back-off) and it completes later; days already written
 * are skipped by then.
 * @see docs/audit.md "Archive: day files"
 */
export function compactionJob(deps: { db: Database; clock: Clock; jobs: JobsService; archive: DayFileArchive }): JobDefinition<Record<string, never>> {
  return {
    name: COMPACTION_JOB,
    retryLimit: 5,
    retryDelaySeconds: 60,
    expireInSeconds: 3600,
    handler: async () => {
      const now = deps.clock.now();
      await deps.db.transaction(async (trx) => {
        const claimed = await trx('audit.compaction_runs').insert({ day: utcDay(now), createdAt: now }).onConflict('day').ignore().returning('day');
        if (claimed.length > 0) await deps.jobs.send(COMPACTION_JOB, {}, { trx, startAfterSeconds: secondsUntilNextRun(now) });
      });
      const report = await deps.archive.compactPending();
      if (report.failed.length > 0) {
        throw new Error(`audit day files: ${report.failed.length} organization day(s) failed: ${report.failed.map((f) => `${f.orgId} ${f.day}: ${f.error}`).join('; ')}`);
      }
    },
  };
}

/**
 * Queues the next nightly run at boot (the plugin's `onStarted`). A job left queued by an earlier
 * process whose time has passed (the server was down at 00:05) runs now, catching up.
 */
export async function scheduleCompaction(jobs: JobsService, clock: Clock): Promise<void> {
  await jobs.send(COMPACTION_JOB, {}, { startAfterSeconds: secondsUntilNextRun(clock.now()) });
}
