import { DAY_MS, utcDay, type Clock, type Database, type JobsService } from '../../core/index.ts';
import { scheduleNightly } from '../audit/api.ts';
import type { RollupBuilder } from './rollups.ts';
import { purgeActiveDays } from './active-days.ts';

/** The nightly rollup job's name. @see docs/api/audit-analytics.md */
export const ROLLUP_JOB = 'analytics.rollup-days';
/** Days the hot end-user store keeps (spec "Limits"). */
export const HOT_STORE_DAYS = 181;

/**
 * `analytics.rollup-days`, nightly at 00:20 UTC, after the day files of 00:05 (`audit.compact-days`):
 * rolls up every day file of the last 90 days that has no rollup yet ({@link RollupBuilder.buildPending}),
 * then removes hot end-user store rows older than {@link HOT_STORE_DAYS} days. A failed day makes the
 * run throw after the rest, so it is retried; a night missed while no process ran is caught up at start.
 * @see docs/api/audit-analytics.md "Rollups"
 */
export function scheduleRollups(deps: { db: Database; clock: Clock; jobs: JobsService; builder: Pick<RollupBuilder, 'buildPending'> }): void {
  scheduleNightly(deps.jobs, ROLLUP_JOB, '20 0 * * *', async () => {
    const report = await deps.builder.buildPending();
    await purgeHotStore(deps.db, deps.clock);
    return report.failed.map((f) => `${f.orgId} ${f.day}: ${f.error}`);
  });
}

/**
 * Removes hot end-user store rows older than {@link HOT_STORE_DAYS} days, and the active days
 * before the cutoff's UTC day. @returns hot-store rows removed.
 */
export async function purgeHotStore(db: Database, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - HOT_STORE_DAYS * DAY_MS);
  const { rows } = await db.knex.raw(
    'with purged as (delete from analytics.end_user_activity where occurred_at < ? returning 1) select count(*)::int as n from purged',
    [cutoff],
  );
  await purgeActiveDays(db, utcDay(cutoff));
  return Number(rows[0].n);
}
