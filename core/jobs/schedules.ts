import type { Database } from '../db/database.ts';
import type { JobDefinition, ScheduleOptions, ScheduleTick } from './jobs.types.ts';
import { previousTime } from './schedule-times.ts';

const TABLE = 'core.job_schedules';

/** A schedule as `core.jobs` keeps it: its cron expression (UTC) and whether it catches up at start. */
export interface ScheduleEntry {
  cron: string;
  catchUp: boolean;
}

/**
 * The schedules of {@link JobsService.schedule}: turns one into a job definition whose handler keeps
 * `core.job_schedules` (start, finish, error of the latest run), and decides the catch-up runs at
 * start. pg-boss itself turns each time into one job (`PgBossJobs`).
 */
export class Schedules {
  readonly entries = new Map<string, ScheduleEntry>();

  constructor(private readonly db: Database) {}

  /**
   * The job definition that runs schedule `name`: its handler keeps `core.job_schedules` (start,
   * finish, error of the latest run) around `handler`. {@link entries} holds the schedule once the
   * caller has defined the job.
   */
  definition(name: string, handler: (tick: ScheduleTick) => Promise<void>, options: ScheduleOptions): JobDefinition<Record<string, never>> {
    return {
      name, retryLimit: options.retryLimit, retryDelaySeconds: options.retryDelaySeconds, expireInSeconds: options.expireInSeconds,
      handler: async ({ id }) => {
        await this.db.knex.raw(
          `insert into ${TABLE} (name, last_started_at) values (?, now()) on conflict (name) do update set last_started_at = now(), last_finished_at = null, last_error = null`,
          [name],
        );
        try {
          await handler({ id });
        } catch (err) {
          await this.db.knex(TABLE).where({ name }).update({ lastFinishedAt: this.db.knex.fn.now(), lastError: String((err as Error)?.message ?? err).slice(0, 2000) });
          throw err;
        }
        await this.db.knex(TABLE).where({ name }).update({ lastFinishedAt: this.db.knex.fn.now() });
      },
    };
  }

  /**
   * The schedules with `catchUp` whose last time passed while no process ran them, claimed so that
   * one of several starting processes queues the run. A schedule seen for the first time is recorded
   * as started now and not run (its first time is ahead).
   */
  async dueCatchUps(now: Date): Promise<string[]> {
    const due: string[] = [];
    for (const [name, entry] of this.entries) {
      await this.db.knex.raw(`insert into ${TABLE} (name, last_started_at) values (?, now()) on conflict (name) do nothing`, [name]);
      if (!entry.catchUp) continue;
      const claimed = await this.db.knex(TABLE).where({ name }).where('lastStartedAt', '<', previousTime(entry.cron, now))
        .update({ lastStartedAt: this.db.knex.fn.now() }).returning('name');
      if (claimed.length > 0) due.push(name);
    }
    return due;
  }
}
