import { DAY_MS, dayStartMs, utcDay, type AuditLog, type Clock, type Database } from '../../core/index.ts';
import type { Counts, DayRollup } from './day-rollup.ts';
import { WHOLE_ORG, type RollupReader } from './rollups.ts';
import { OWNER_ONLY_PREFIXES, type DayFiles } from '../audit/api.ts';
import type { ActivityRow } from './activity-row.ts';
import type { ForensicFn } from './rollup-tasks.ts';
import { HOT_STORE_DAYS } from './rollup-job.ts';
import { countActiveUsers, type DistinctUsers } from './active-days.ts';

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

/** End users' email and display name by id (the end-user directory); unknown ids are left out. */
export type Profiles = (ids: string[]) => Promise<Map<string, { email: string; displayName: string | null }>>;

/** The window of one `/analytics` request: its UTC dates (oldest first), start, the previous window's start, today's start. */
interface Window {
  orgId: string;
  appGroupId?: string;
  dates: string[];
  start: Date;
  prevStart: Date;
  todayStart: Date;
}

/** What either source (rollups or the hot store) computes for `/analytics`. */
interface Figures {
  kpi: { mau: number; mauPrev: number; logins: number; loginsPrev: number; signups: number; signupsPrev: number; dauToday: number };
  daily: Array<{ date: string; logins: number; dau: number; signups: number }>;
  providers: Counts;
  groups: Map<string, { logins: number; activeUsers: number }>;
  topUsers: Array<{ email: string | null; displayName: string | null; logins: number }>;
}

function emptyFigures(dates: string[]): Figures {
  return {
    kpi: { mau: 0, mauPrev: 0, logins: 0, loginsPrev: 0, signups: 0, signupsPrev: 0, dauToday: 0 },
    daily: dates.map((date) => ({ date, logins: 0, dau: 0, signups: 0 })), providers: {}, groups: new Map(), topUsers: [],
  };
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
  constructor(
    private readonly db: Database, private readonly clock: Clock, private readonly rollups: RollupReader, private readonly auditLog: AuditLog,
    private readonly archive: Pick<DayFiles, 'dayFiles' | 'readFile'>, private readonly scan: ForensicFn,
  ) {}

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
   * `/analytics`: the dashboard. Windows over {@link FREE_WINDOW_DAYS} days without an app group are
   * served from rollups (`windowSource: 'rollup'`): the daily series, logins, signups, providers,
   * logins per app group and top users of the past days (today from the hot end-user store), the
   * previous window's logins and signups; only the distinct counts (`mau`, `mauPrev`, `dauToday`,
   * active users per app group) are counted in the hot store. When none of the window's past days
   * has a rollup (`hot_fallback`), and for short windows and app-group views (`hot`), everything
   * comes from the hot store. `topIps` and `orgEventTypes` cover the last
   * {@link ORG_AUDIT_WINDOW_DAYS} days in every mode (IP addresses never enter rollups).
   * App groups whose event collection is off report zeros. `payment.*` types are listed for the
   * Owner only (`owner`).
   */
  async dashboard(orgId: string, options: { days: number; appGroupId?: string; addonActive: boolean; appGroups: AnalyticsAppGroup[]; profiles: Profiles; owner: boolean }) {
    const { days, appGroupId, appGroups } = options;
    const today = utcDay(this.clock.now());
    const dates = dateWindow(today, days);
    const w: Window = { orgId, appGroupId, dates, start: new Date(dayStartMs(dates[0])), prevStart: new Date(dayStartMs(dates[0]) - days * DAY_MS), todayStart: new Date(dayStartMs(today)) };
    let windowSource: 'hot' | 'rollup' | 'hot_fallback' = 'hot';
    let requested = 0;
    let found = new Map<string, DayRollup>();
    if (days > FREE_WINDOW_DAYS && appGroupId === undefined) {
      const past = dates.slice(0, -1);
      found = await this.rollups.days(orgId, WHOLE_ORG, past);
      requested = past.length;
      windowSource = found.size > 0 ? 'rollup' : 'hot_fallback';
    }
    const silenced = appGroupId !== undefined && appGroups.some((g) => g.id === appGroupId && !g.eventsEnabled);
    const figures = silenced ? emptyFigures(dates)
      : windowSource === 'rollup' ? await this.rollupFigures(w, found, options.profiles) : await this.hotFigures(w, options.profiles);
    const silencedGroups = new Set(appGroups.filter((g) => !g.eventsEnabled).map((g) => g.id));
    return {
      days, addonActive: options.addonActive, freeWindowDays: FREE_WINDOW_DAYS, windowSource,
      rollupCoveredDates: found.size, rollupRequestedDates: requested,
      appGroups,
      kpi: figures.kpi,
      daily: figures.daily,
      providers: sortCounts(figures.providers, Number.MAX_SAFE_INTEGER).map(([provider, count]) => ({ provider, count })),
      byAppGroup: appGroups.filter((g) => appGroupId === undefined || g.id === appGroupId).map((g) => {
        const silent = silencedGroups.has(g.id);
        return { appGroupId: g.id, name: g.name, activeUsers: silent ? 0 : figures.groups.get(g.id)?.activeUsers ?? 0, logins: silent ? 0 : figures.groups.get(g.id)?.logins ?? 0 };
      }),
      topUsers: figures.topUsers,
      topIps: silenced ? [] : await this.topIps(w),
      orgEventTypes: (await this.auditLog.eventTypeCounts(orgId, new Date(dayStartMs(today) - (ORG_AUDIT_WINDOW_DAYS - 1) * DAY_MS)))
        .filter((t) => options.owner || !OWNER_ONLY_PREFIXES.some((p) => t.eventType.startsWith(p))),
      orgAuditWindowDays: ORG_AUDIT_WINDOW_DAYS,
    };
  }

  /** The hot end-user store's rows of the organization (or one app group). */
  private activity(w: Pick<Window, 'orgId' | 'appGroupId'>) {
    const q = this.db.knex('analytics.end_user_activity').where({ orgId: w.orgId });
    return w.appGroupId === undefined ? q : q.where({ appGroupId: w.appGroupId });
  }

  /** Distinct end users who signed in: in the window, the previous one, today, and per app group in the window. */
  private distinctUsers(w: Window): Promise<DistinctUsers> {
    return countActiveUsers(this.db, { orgId: w.orgId, appGroupId: w.appGroupId, start: w.dates[0], prevStart: utcDay(w.prevStart), today: w.dates.at(-1)! });
  }

  /** Figures of a window served from rollups (past days) and the hot store (today, distinct counts). */
  private async rollupFigures(w: Window, found: Map<string, DayRollup>, profiles: Profiles): Promise<Figures> {
    const prevDates = dateWindow(utcDay(w.start.getTime() - DAY_MS), w.dates.length);
    const [prev, todayRows, distinct] = await Promise.all([
      this.rollups.days(w.orgId, WHOLE_ORG, prevDates),
      this.activity(w).andWhere('occurredAt', '>=', w.todayStart).groupBy('kind', 'method', 'appGroupId', 'endUserId')
        .select('kind', 'method', 'appGroupId', 'endUserId', this.db.knex.raw('count(*) as n')) as Promise<Array<{ kind: string; method: string | null; appGroupId: string | null; endUserId: string | null; n: string }>>,
      this.distinctUsers(w),
    ]);
    const today = { logins: 0, signups: 0, providers: {} as Counts, byAppGroup: {} as Counts, users: {} as Counts };
    for (const r of todayRows) {
      const n = num(r.n);
      if (r.kind === 'signup') today.signups += n;
      if (r.kind !== 'login') continue;
      today.logins += n;
      addCounts(today.providers, { [r.method ?? 'unknown']: n });
      if (r.appGroupId) addCounts(today.byAppGroup, { [r.appGroupId]: n });
      if (r.endUserId) addCounts(today.users, { [r.endUserId]: n });
    }
    const providers: Counts = { ...today.providers };
    const logins: Counts = { ...today.byAppGroup };
    const users: Counts = { ...today.users };
    const daily = w.dates.map((date) => {
      const r = found.get(date);
      if (!r) return { date, logins: 0, dau: 0, signups: 0 };
      addCounts(providers, r.signIn.providers);
      addCounts(logins, r.signIn.byAppGroup);
      addCounts(users, r.signIn.users);
      return { date, logins: r.signIn.logins, dau: r.signIn.activeUsers, signups: r.signIn.signups };
    });
    daily[daily.length - 1] = { date: w.dates.at(-1)!, logins: today.logins, dau: distinct.dauToday, signups: today.signups };
    const sum = (rows: Iterable<DayRollup>, f: (r: DayRollup) => number) => [...rows].reduce((n, r) => n + f(r), 0);
    const top = sortCounts(users, TOP_LIST);
    const people = await profiles(top.map(([id]) => id));
    return {
      kpi: {
        mau: distinct.mau, mauPrev: distinct.mauPrev, dauToday: distinct.dauToday,
        logins: daily.reduce((n, d) => n + d.logins, 0), loginsPrev: sum(prev.values(), (r) => r.signIn.logins),
        signups: daily.reduce((n, d) => n + d.signups, 0), signupsPrev: sum(prev.values(), (r) => r.signIn.signups),
      },
      daily,
      providers,
      groups: new Map([...new Set([...Object.keys(logins), ...distinct.perGroup.keys()])].map((id) => [id, { logins: logins[id] ?? 0, activeUsers: distinct.perGroup.get(id) ?? 0 }])),
      topUsers: top.map(([id, n]) => ({ email: people.get(id)?.email ?? null, displayName: people.get(id)?.displayName ?? null, logins: n })),
    };
  }

  /** Figures of a window served from the hot end-user store alone. */
  private async hotFigures(w: Window, profiles: Profiles): Promise<Figures> {
    const knex = this.db.knex;
    const inWindow = () => this.activity(w).andWhere('occurredAt', '>=', w.start);
    const [series, counts, byMethod, byGroup, users, distinct] = await Promise.all([
      inWindow().groupBy(knex.raw(`to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD')`) as never)
        .select(knex.raw(`to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day`), knex.raw(`count(*) filter (where kind = 'login') as logins`),
          knex.raw(`count(distinct end_user_id) filter (where kind = 'login') as dau`), knex.raw(`count(*) filter (where kind = 'signup') as signups`)),
      this.activity(w).andWhere('occurredAt', '>=', w.prevStart).whereIn('kind', ['login', 'signup']).select(
        knex.raw(`count(*) filter (where kind = 'login' and occurred_at >= ?) as logins`, [w.start]), knex.raw(`count(*) filter (where kind = 'login' and occurred_at < ?) as logins_prev`, [w.start]),
        knex.raw(`count(*) filter (where kind = 'signup' and occurred_at >= ?) as signups`, [w.start]), knex.raw(`count(*) filter (where kind = 'signup' and occurred_at < ?) as signups_prev`, [w.start])),
      inWindow().where({ kind: 'login' }).groupBy('method').select('method', knex.raw('count(*) as n')),
      inWindow().where({ kind: 'login' }).whereNotNull('appGroupId').groupBy('appGroupId').select('appGroupId', knex.raw('count(*) as n')),
      inWindow().where({ kind: 'login' }).whereNotNull('endUserId').groupBy('endUserId')
        .select('endUserId', knex.raw('max(email) as email'), knex.raw('count(*) as logins')).orderBy([{ column: 'logins', order: 'desc' }, { column: 'endUserId' }]).limit(TOP_LIST),
      this.distinctUsers(w),
    ]) as [Array<Record<string, string>>, Array<Record<string, string>>, Array<{ method: string | null; n: string }>, Array<{ appGroupId: string; n: string }>, Array<{ endUserId: string; email: string | null; logins: string }>, DistinctUsers];
    const byDay = new Map(series.map((r) => [r.day, r]));
    const c = counts[0] ?? {};
    const people = await profiles(users.map((u) => u.endUserId));
    const logins = new Map(byGroup.map((g) => [g.appGroupId, num(g.n)]));
    return {
      kpi: {
        mau: distinct.mau, mauPrev: distinct.mauPrev, dauToday: distinct.dauToday,
        logins: num(c.logins), loginsPrev: num(c.loginsPrev), signups: num(c.signups), signupsPrev: num(c.signupsPrev),
      },
      daily: w.dates.map((date) => ({ date, logins: num(byDay.get(date)?.logins), dau: num(byDay.get(date)?.dau), signups: num(byDay.get(date)?.signups) })),
      providers: Object.fromEntries(byMethod.map((m) => [m.method ?? 'unknown', num(m.n)])),
      groups: new Map([...new Set([...logins.keys(), ...distinct.perGroup.keys()])].map((id) => [id, { logins: logins.get(id) ?? 0, activeUsers: distinct.perGroup.get(id) ?? 0 }])),
      topUsers: users.map((u) => ({ email: u.email ?? people.get(u.endUserId)?.email ?? null, displayName: people.get(u.endUserId)?.displayName ?? null, logins: num(u.logins) })),
    };
  }

  /** The addresses with the most logins and failed attempts over the last {@link ORG_AUDIT_WINDOW_DAYS} days; `users` distinct emails (or end users). */
  private async topIps(w: Window) {
    const since = new Date(w.todayStart.getTime() - (ORG_AUDIT_WINDOW_DAYS - 1) * DAY_MS);
    const rows: Array<{ ip: string; n: string; users: string }> = await this.activity(w).whereIn('kind', ['login', 'failure']).whereNotNull('ip').andWhere('occurredAt', '>=', since)
      .groupBy('ip').select('ip', this.db.knex.raw('count(*) as n'), this.db.knex.raw('count(distinct coalesce(email, end_user_id)) as users'))
      .orderBy([{ column: 'n', order: 'desc' }, { column: 'ip' }]).limit(TOP_LIST);
    return rows.map((r) => ({ ip: r.ip, count: num(r.n), users: num(r.users) }));
  }

  /**
   * `/stats/forensic`: one end user's logins, failed attempts and signups within an app group, by
   * email, newest first: from the hot end-user store for its {@link HOT_STORE_DAYS} days, and for a
   * longer window from the archive's day files beyond them (each checked against its manifest
   * SHA-256 and scanned in the worker pool, newest day first, until `limit` is passed).
   * @returns `{ email, appGroupId, days, items[{seq, at, kind, method, reason, ip}], truncated, archiveDays }`
   *   — `archiveDays` counts the day files read.
   * @throws Error when an archived day file is missing or altered.
   */
  async forensic(orgId: string, appGroupId: string, email: string, days: number, limit: number) {
    const now = this.clock.now().getTime();
    const who = { appGroupId, email: email.toLowerCase() };
    const from = new Date(now - days * DAY_MS);
    const hotFrom = new Date(Math.max(from.getTime(), now - HOT_STORE_DAYS * DAY_MS));
    const hot: ActivityRow[] = (await this.db.knex('analytics.end_user_activity')
      .where({ orgId, ...who }).andWhere('occurredAt', '>=', hotFrom)
      .orderBy([{ column: 'occurredAt', order: 'desc' }, { column: 'seq', order: 'desc' }]).limit(limit + 1)
      .select('seq', 'occurredAt', 'kind', 'method', 'reason', 'ip')) as ActivityRow[];
    const items = [...hot];
    let archiveDays = 0;
    if (from < hotFrom && items.length <= limit) {
      const files = (await this.archive.dayFiles(orgId, utcDay(from), utcDay(hotFrom))).reverse();
      for (const file of files) {
        if (items.length > limit) break;
        archiveDays++;
        const rows = await this.scan(await this.archive.readFile(file), who);
        items.push(...rows.filter((r) => r.occurredAt < hotFrom && r.occurredAt >= from));
      }
    }
    return {
      ...who, days, archiveDays,
      items: items.slice(0, limit).map((r) => ({ seq: Number(r.seq), at: new Date(r.occurredAt).toISOString(), kind: r.kind, method: r.method ?? null, reason: r.reason ?? null, ip: r.ip ?? null })),
      truncated: items.length > limit,
    };
  }
}

