import { DAY_MS, dayStartMs, utcDay, type AuditLog, type Clock, type Database } from '../../core/index.ts';
import type { Counts, DayRollup } from './day-rollup.ts';
import { WHOLE_ORG, type RollupReader } from './rollups.ts';

/** Days `/analytics` and `/analytics/rollup` allow without the Audit Analytics add-on. */
export const FREE_WINDOW_DAYS = 3;
/** Days of `orgEventTypes` (read from the hot audit table). */
export const ORG_AUDIT_WINDOW_DAYS = 3;
/** Entries of each top list (`topUsers`, `topIps`, `pages`, …). */
export const TOP_LIST = 10;
const BEHAVIOR_TOP = 50;

/** The `days` UTC dates ending `lastDay` (inclusive), oldest first. */
export function dateWindow(lastDay: string, days: number): string[] {
  const end = dayStartMs(lastDay);
  return Array.from({ length: days }, (_, i) => utcDay(end - (days - 1 - i) * DAY_MS));
}

const num = (v: unknown) => Number(v ?? 0);
const sortCounts = (c: Counts, limit: number) => Object.entries(c).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit);
function addCounts(into: Counts, from: Counts): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** An app group as `/analytics` lists it. */
export interface AnalyticsAppGroup {
  id: string;
  name: string;
  eventsEnabled: boolean;
}

/**
 * The read side of audit analytics: rollup windows (`/analytics/rollup`, `/behavior/rollup`), the
 * dashboard (`/analytics`: daily series from rollups or the hot end-user store, KPIs and top lists
 * from the hot store, event types from the hot audit table) and the forensic trail of one end user.
 * Every query filters by organization.
 * @see docs/api/audit-analytics.md
 */
export class AnalyticsService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly rollups: RollupReader, private readonly auditLog: AuditLog) {}

  /**
   * `/analytics/rollup`: sign-in outcomes and event volumes of the `days` completed UTC days before
   * today, from rollups; days without one are omitted.
   * @returns `{available:false, reason:'no_rollups_yet'}` when none of the days has a rollup, else
   *   `{available:true, days, coveredDates, requestedDates, daily[{date,logins,failures,totalEvents}],
   *   failureReasons[{reason,count}], totals{logins,failures,attempts,failureRatePct}}`.
   */
  async signInRollup(orgId: string, days: number) {
    const dates = dateWindow(utcDay(this.clock.now().getTime() - DAY_MS), days);
    const found = await this.rollups.days(orgId, WHOLE_ORG, dates);
    if (found.size === 0) return { available: false as const, reason: 'no_rollups_yet' as const };
    const reasons: Counts = {};
    const daily = dates.filter((d) => found.has(d)).map((date) => {
      const r = found.get(date)!;
      addCounts(reasons, r.signIn.failureReasons);
      return { date, logins: r.signIn.logins, failures: r.signIn.failures, totalEvents: r.totalEvents };
    });
    const logins = daily.reduce((n, d) => n + d.logins, 0);
    const failures = daily.reduce((n, d) => n + d.failures, 0);
    const attempts = logins + failures;
    return {
      available: true as const, days, coveredDates: found.size, requestedDates: dates.length, daily,
      failureReasons: sortCounts(reasons, Number.MAX_SAFE_INTEGER).map(([reason, count]) => ({ reason, count })),
      totals: { logins, failures, attempts, failureRatePct: attempts === 0 ? 0 : Math.round((failures / attempts) * 1000) / 10 },
    };
  }

  /**
   * `/behavior/rollup`: pages, dwell time, referrers, campaign sources and countries of the `days`
   * completed UTC days before today, of the organization or one app group, from rollups.
   * Visitor totals are sums of daily distinct counts: upper bounds, named so.
   */
  async behaviorRollup(orgId: string, appGroupId: string | undefined, days: number) {
    const dates = dateWindow(utcDay(this.clock.now().getTime() - DAY_MS), days);
    const found = await this.rollups.days(orgId, appGroupId ?? WHOLE_ORG, dates);
    if (found.size === 0) return { available: false as const, reason: 'no_rollups_yet' as const };
    const pages: Record<string, { views: number; dwellMs: number }> = {};
    const referrers: Counts = {};
    const campaigns: Counts = {};
    const countries: Counts = {};
    const totals = { pageViews: 0, dwellMs: 0, visitorsUpperBound: 0, identifiedUsersUpperBound: 0 };
    const daily = dates.filter((d) => found.has(d)).map((date) => {
      const b = found.get(date)!.behavior;
      totals.pageViews += b.pageViews;
      totals.dwellMs += b.dwellMs;
      totals.visitorsUpperBound += b.visitors;
      totals.identifiedUsersUpperBound += b.identifiedUsers;
      for (const [path, p] of Object.entries(b.pages)) {
        const into = (pages[path] ??= { views: 0, dwellMs: 0 });
        into.views += p.views;
        into.dwellMs += p.dwellMs;
      }
      addCounts(referrers, b.referrers);
      addCounts(campaigns, b.campaigns);
      addCounts(countries, b.countries);
      return { date, pageViews: b.pageViews, dwellMs: b.dwellMs, visitors: b.visitors, identifiedUsers: b.identifiedUsers };
    });
    return {
      available: true as const, days, appGroupId: appGroupId ?? null, coveredDates: found.size, requestedDates: dates.length,
      totals: { ...totals, avgDwellMs: totals.pageViews === 0 ? 0 : Math.round(totals.dwellMs / totals.pageViews) },
      daily,
      pages: Object.entries(pages).sort((a, b) => b[1].views - a[1].views || (a[0] < b[0] ? -1 : 1)).slice(0, BEHAVIOR_TOP)
        .map(([path, p]) => ({ path, views: p.views, dwellMs: p.dwellMs, avgDwellMs: Math.round(p.dwellMs / p.views) })),
      referrers: sortCounts(referrers, BEHAVIOR_TOP).map(([host, count]) => ({ host, count })),
      campaigns: sortCounts(campaigns, BEHAVIOR_TOP).map(([source, count]) => ({ source, count })),
      countries: sortCounts(countries, BEHAVIOR_TOP).map(([country, views]) => ({ country, views })),
    };
  }

  /**
   * `/analytics`: the dashboard. The daily series comes from rollups for windows over
   * {@link FREE_WINDOW_DAYS} days without an app group (today from the hot end-user store;
   * `windowSource: 'rollup'`), from the hot store when no day of the window has a rollup
   * (`hot_fallback`), else from the hot store (`hot`). KPIs, providers, app groups and top lists
   * come from the hot end-user store; `orgEventTypes` from the hot audit table over the last
   * {@link ORG_AUDIT_WINDOW_DAYS} days. App groups whose event collection is off report zeros.
   */
  async dashboard(orgId: string, options: { days: number; appGroupId?: string; addonActive: boolean; appGroups: AnalyticsAppGroup[]; displayNames: (ids: string[]) => Promise<Map<string, string | null>> }) {
    const { days, appGroupId, appGroups } = options;
    const now = this.clock.now();
    const today = utcDay(now);
    const dates = dateWindow(today, days);
    const start = new Date(dayStartMs(dates[0]));
    const prevStart = new Date(start.getTime() - days * DAY_MS);
    const disabled = new Set(appGroups.filter((g) => !g.eventsEnabled).map((g) => g.id));
    const silenced = appGroupId !== undefined && disabled.has(appGroupId);
    const scoped = () => {
      let q = this.db.knex('analytics.end_user_activity').where({ orgId });
      if (appGroupId !== undefined) q = q.where({ appGroupId });
      else if (disabled.size) q = q.where((w) => w.whereNull('appGroupId').orWhereNotIn('appGroupId', [...disabled]));
      return q;
    };
    const knex = this.db.knex;

    // The daily series: rollups (past days) + hot store (today), or the hot store alone.
    let windowSource: 'hot' | 'rollup' | 'hot_fallback' = 'hot';
    let covered = 0;
    let requested = 0;
    const daily = new Map(dates.map((date) => [date, { date, logins: 0, dau: 0, signups: 0 }]));
    let hotFrom = start;
    if (days > FREE_WINDOW_DAYS && appGroupId === undefined) {
      const past = dates.slice(0, -1);
      const found = await this.rollups.days(orgId, WHOLE_ORG, past);
      requested = past.length;
      covered = found.size;
      if (found.size > 0) {
        windowSource = 'rollup';
        hotFrom = new Date(dayStartMs(today));
        for (const [date, r] of found) Object.assign(daily.get(date)!, { logins: r.signIn.logins, dau: r.signIn.activeUsers, signups: r.signIn.signups });
      } else windowSource = 'hot_fallback';
    }
    const dayExpr = knex.raw(`to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD')`);
    const series = silenced ? [] : await scoped().andWhere('occurredAt', '>=', hotFrom)
      .groupBy(dayExpr as never)
      .select(knex.raw(`to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day`),
        knex.raw(`count(*) filter (where kind = 'login') as logins`),
        knex.raw(`count(distinct end_user_id) filter (where kind = 'login') as dau`),
        knex.raw(`count(*) filter (where kind = 'signup') as signups`));
    for (const row of series as Array<{ day: string; logins: string; dau: string; signups: string }>) {
      const d = daily.get(row.day);
      if (d) Object.assign(d, { logins: num(row.logins), dau: num(row.dau), signups: num(row.signups) });
    }

    const empty = silenced;
    const [kpiRow] = empty ? [{}] : await scoped().andWhere('occurredAt', '>=', prevStart).select(
      knex.raw(`count(distinct end_user_id) filter (where kind = 'login' and occurred_at >= ?) as mau`, [start]),
      knex.raw(`count(distinct end_user_id) filter (where kind = 'login' and occurred_at < ?) as mau_prev`, [start]),
      knex.raw(`count(*) filter (where kind = 'login' and occurred_at >= ?) as logins`, [start]),
      knex.raw(`count(*) filter (where kind = 'login' and occurred_at < ?) as logins_prev`, [start]),
      knex.raw(`count(*) filter (where kind = 'signup' and occurred_at >= ?) as signups`, [start]),
      knex.raw(`count(*) filter (where kind = 'signup' and occurred_at < ?) as signups_prev`, [start]),
      knex.raw(`count(distinct end_user_id) filter (where kind = 'login' and occurred_at >= ?) as dau_today`, [new Date(dayStartMs(today))]),
    );
    const k = kpiRow as Record<string, unknown>;
    const inWindow = () => scoped().andWhere('occurredAt', '>=', start);
    const [providers, byGroup, users, ips] = empty ? [[], [], [], []] : await Promise.all([
      inWindow().where({ kind: 'login' }).groupBy('method').select('method', knex.raw('count(*) as count')).orderBy([{ column: 'count', order: 'desc' }, { column: 'method' }]),
      inWindow().where({ kind: 'login' }).whereNotNull('appGroupId').groupBy('appGroupId')
        .select('appGroupId', knex.raw('count(distinct end_user_id) as active_users'), knex.raw('count(*) as logins')),
      inWindow().where({ kind: 'login' }).whereNotNull('endUserId').groupBy('endUserId')
        .select('endUserId', knex.raw('max(email) as email'), knex.raw('count(*) as logins')).orderBy([{ column: 'logins', order: 'desc' }, { column: 'endUserId' }]).limit(TOP_LIST),
      inWindow().whereIn('kind', ['login', 'failure']).whereNotNull('ip').groupBy('ip')
        .select('ip', knex.raw('count(*) as count'), knex.raw('count(distinct coalesce(email, end_user_id)) as users')).orderBy([{ column: 'count', order: 'desc' }, { column: 'ip' }]).limit(TOP_LIST),
    ]) as Array<Array<Record<string, any>>>;
    const names = await options.displayNames(users.map((u) => u.endUserId));
    const groupNames = new Map(appGroups.map((g) => [g.id, g.name]));
    const byGroupMap = new Map(byGroup.map((g) => [g.appGroupId, g]));

    return {
      days, addonActive: options.addonActive, freeWindowDays: FREE_WINDOW_DAYS, windowSource,
      rollupCoveredDates: covered, rollupRequestedDates: requested,
      appGroups,
      kpi: {
        mau: num(k.mau), mauPrev: num(k.mauPrev), logins: num(k.logins), loginsPrev: num(k.loginsPrev),
        signups: num(k.signups), signupsPrev: num(k.signupsPrev), dauToday: num(k.dauToday),
      },
      daily: [...daily.values()],
      providers: providers.map((p) => ({ provider: p.method ?? 'unknown', count: num(p.count) })),
      byAppGroup: appGroups.filter((g) => appGroupId === undefined || g.id === appGroupId).map((g) => {
        const row = g.eventsEnabled ? byGroupMap.get(g.id) : undefined;
        return { appGroupId: g.id, name: groupNames.get(g.id) ?? g.id, activeUsers: num(row?.activeUsers), logins: num(row?.logins) };
      }),
      topUsers: users.map((u) => ({ email: u.email ?? null, displayName: names.get(u.endUserId) ?? null, logins: num(u.logins) })),
      topIps: ips.map((i) => ({ ip: i.ip, count: num(i.count), users: num(i.users) })),
      orgEventTypes: await this.auditLog.eventTypeCounts(orgId, new Date(dayStartMs(today) - (ORG_AUDIT_WINDOW_DAYS - 1) * DAY_MS)),
      orgAuditWindowDays: ORG_AUDIT_WINDOW_DAYS,
    };
  }

  /**
   * `/stats/forensic`: one end user's sign-ins, failed attempts and signups within an app group,
   * by email, newest first, from the hot end-user store (181 days).
   * @returns `{ email, appGroupId, days, items[{at, kind, method, reason, ip}], truncated }`.
   */
  async forensic(orgId: string, appGroupId: string, email: string, days: number, limit: number) {
    const from = new Date(this.clock.now().getTime() - days * DAY_MS);
    const rows: Array<Record<string, any>> = await this.db.knex('analytics.end_user_activity')
      .where({ orgId, appGroupId, email: email.toLowerCase() }).andWhere('occurredAt', '>=', from)
      .orderBy([{ column: 'occurredAt', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(limit + 1)
      .select('seq', 'occurredAt', 'kind', 'method', 'reason', 'ip');
    return {
      email: email.toLowerCase(), appGroupId, days,
      items: rows.slice(0, limit).map((r) => ({ seq: Number(r.seq), at: new Date(r.occurredAt).toISOString(), kind: r.kind, method: r.method ?? null, reason: r.reason ?? null, ip: r.ip ?? null })),
      truncated: rows.length > limit,
    };
  }
}

export type { DayRollup };
