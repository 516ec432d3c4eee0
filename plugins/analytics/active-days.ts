import type { Knex } from 'knex';
import { utcDay, type Database } from '../../core/index.ts';
import type { ActivityRow } from './activity-row.ts';

/** The `app_group_id` of an end user's organization-wide row. */
const WHOLE_ORG = '';
/** Rows per upsert statement. */
const CHUNK = 500;

/**
 * The active-days rows of a page of hot-store rows: for each end user who signed in (`login` with
 * an end-user id), one row for the organization (`appGroupId: ''`) and one per app group, `days` a
 * `datemultirange` literal of the UTC days of those sign-ins. Shape: `{orgId, appGroupId, endUserId, days, lastDay}`.
 */
export function activeDayRows(activity: readonly ActivityRow[]): Array<{ orgId: string; appGroupId: string; endUserId: string; days: string; lastDay: string }> {
  const byKey = new Map<string, { orgId: string; appGroupId: string; endUserId: string; days: Set<string> }>();
  for (const a of activity) {
    if (a.kind !== 'login' || !a.endUserId) continue;
    const day = utcDay(a.occurredAt);
    for (const appGroupId of a.appGroupId ? [WHOLE_ORG, a.appGroupId] : [WHOLE_ORG]) {
      const key = `${a.orgId}/${appGroupId}/${a.endUserId}`;
      let row = byKey.get(key);
      if (!row) byKey.set(key, (row = { orgId: a.orgId, appGroupId, endUserId: a.endUserId, days: new Set() }));
      row.days.add(day);
    }
  }
  return [...byKey.values()].map((r) => {
    const days = [...r.days].sort();
    return { ...r, days: `{${days.map((d) => `[${d},${d}]`).join(',')}}`, lastDay: days.at(-1)! };
  });
}

/**
 * Adds the sign-in days of `activity` to `analytics.end_user_active_days` (union with the days
 * already there: replaying a page changes nothing). Runs in the caller's transaction.
 */
export async function addActiveDays(trx: Knex.Transaction, activity: readonly ActivityRow[]): Promise<void> {
  const rows = activeDayRows(activity);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx('analytics.end_user_active_days').insert(rows.slice(i, i + CHUNK)).onConflict(['orgId', 'appGroupId', 'endUserId'])
      .merge({ days: trx.raw('end_user_active_days.days + excluded.days'), lastDay: trx.raw('greatest(end_user_active_days.last_day, excluded.last_day)') })
      .whereRaw('not end_user_active_days.days @> excluded.days'); // a day already there writes nothing
  }
}

/**
 * Removes the days before `cutoffDay` (`YYYY-MM-DD`), and the rows left without a day: the hot
 * store's purge. The cutoff's own day is kept (the hot store keeps its later part).
 */
export async function purgeActiveDays(db: Database, cutoffDay: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('delete from analytics.end_user_active_days where last_day < ?::date', [cutoffDay]);
    await trx.raw(`update analytics.end_user_active_days set days = days - datemultirange(daterange(null, ?::date)) where lower(days) < ?::date`, [cutoffDay, cutoffDay]);
  });
}

/** Distinct end users of a dashboard window: `mau` in it, `mauPrev` in the previous one, `dauToday`, and per app group in it. */
export interface DistinctUsers {
  mau: number;
  mauPrev: number;
  dauToday: number;
  perGroup: Map<string, number>;
}

/**
 * Counts distinct end users who signed in since `start` (the window, up to now), in [`prevStart`,
 * `start`) and since `todayStart` — of the organization, or of one app group — and per app group
 * since `start`, from `analytics.end_user_active_days` in one pass over the organization's rows.
 * The three dates are UTC day starts (`YYYY-MM-DD`).
 */
export async function countActiveUsers(db: Database, w: { orgId: string; appGroupId?: string; start: string; prevStart: string; today: string }): Promise<DistinctUsers> {
  const rows: Array<{ appGroupId: string; cur: string; prev: string; today: string }> = await db.knex('analytics.end_user_active_days')
    .where({ orgId: w.orgId }).modify((q) => (w.appGroupId === undefined ? q : q.where({ appGroupId: w.appGroupId })))
    .andWhere('lastDay', '>=', w.prevStart)
    .groupBy('appGroupId')
    .select('appGroupId', db.knex.raw('count(*) filter (where last_day >= ?::date) as cur', [w.start]),
      // The multirange is opened for the previous window only, and only on the rows that count it.
      db.knex.raw('count(*) filter (where app_group_id = ? and (last_day < ?::date or days && daterange(?::date, ?::date))) as prev', [w.appGroupId ?? WHOLE_ORG, w.start, w.prevStart, w.start]),
      db.knex.raw('count(*) filter (where last_day >= ?::date) as today', [w.today]));
  const total = rows.find((r) => r.appGroupId === (w.appGroupId ?? WHOLE_ORG));
  return {
    mau: Number(total?.cur ?? 0), mauPrev: Number(total?.prev ?? 0), dauToday: Number(total?.today ?? 0),
    perGroup: new Map(rows.filter((r) => r.appGroupId !== WHOLE_ORG).map((r) => [r.appGroupId, Number(r.cur)])),
  };
}
