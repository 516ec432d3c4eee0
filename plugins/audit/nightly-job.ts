import type { Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { DAY_MS, dayStartMs, utcDay } from '../../core/index.ts';

/**
 * What a nightly audit job is: its `name`, the table its runs are claimed in (`day` primary key,
 * `created_at`), the time of day it runs (`afterMidnightMs`, UTC), and `run`, answering one line per
 * failure (an empty list when everything went through).
 */
export interface NightlyJobSpec {
  name: string;
  runsTable: string;
  afterMidnightMs: number;
  run: () => Promise<string[]>;
}

/** Seconds from `now` to the next time of day `afterMidnightMs` (UTC), at least 1. @see docs/audit.md */
export function secondsUntilNightly(now: Date, afterMidnightMs: number): number {
  const today = dayStartMs(utcDay(now)) + afterMidnightMs;
  const next = now.getTime() < today ? today : today + DAY_MS;
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/**
 * A job that runs once a day: each run first queues the next one — once per UTC day, claimed in
 * `spec.runsTable` in the same transaction, so duplicates (one queued per boot) never multiply —
 * then does its work. When something failed, the job throws after the rest is done, so `core.jobs`
 * retries it (5 times, 60 s apart); work already done is skipped by then.
 * @see docs/audit.md "Archive: day files", "Retention"
 */
export function nightlyJob(deps: { db: Database; clock: Clock; jobs: JobsService }, spec: NightlyJobSpec): JobDefinition<Record<string, never>> {
  return {
    name: spec.name,
    retryLimit: 5,
    retryDelaySeconds: 60,
    expireInSeconds: 3600,
    handler: async () => {
      const now = deps.clock.now();
      await deps.db.transaction(async (trx) => {
        const claimed = await trx(spec.runsTable).insert({ day: utcDay(now), createdAt: now }).onConflict('day').ignore().returning('day');
        if (claimed.length > 0) await deps.jobs.send(spec.name, {}, { trx, startAfterSeconds: secondsUntilNightly(now, spec.afterMidnightMs) });
      });
      const failed = await spec.run();
      if (failed.length > 0) throw new Error(`${spec.name}: ${failed.length} failed: ${failed.join('; ')}`);
    },
  };
}

/** Queues a nightly job's next run at boot (a plugin's `onStarted`); an overdue one left queued runs now. */
export async function scheduleNightly(jobs: JobsService, clock: Clock, spec: Pick<NightlyJobSpec, 'name' | 'afterMidnightMs'>): Promise<void> {
  await jobs.send(spec.name, {}, { startAfterSeconds: secondsUntilNightly(clock.now(), spec.afterMidnightMs) });
}
