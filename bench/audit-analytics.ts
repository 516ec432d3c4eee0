/**
 * Benchmark of the audit-at-scale issue's analytics target: `GET /api/v1/admin/audit/analytics` at
 * 90 days for an organization with 1,000,000 events spread over those days answers in < 200 ms
 * from rollups.
 *
 * Set-up (not timed): one organization with the Audit Analytics add-on and three app groups;
 * `--events` (default 1,000,000) records generated over the 90 completed UTC days before today (a
 * realistic mix: 10 % end-user logins among 20,000 end users, 2 % failed attempts, 0.5 %
 * self-signups, 70 % page views from 50,000 visitors, the rest other event types); each day is
 * rolled up with the rollup worker's own function (`rollUpDay`, countries from the offline
 * database — the time is printed: rollup events/s on one thread) and written to
 * `analytics.rollups`, as the nightly job does; the logins, failures and signups go to the hot
 * end-user store and the logins' days to its active-days table; the last 3 days' events (the
 * `orgEventTypes` window) are sealed on the chain through `core.audit.ingest` (then projected,
 * archived and checkpointed); the three analytics tables are vacuumed and analysed (as autovacuum
 * would have done long before anyone reads a 90-day window).
 * Timed: `/analytics?days=90` once cold (empty rollup cache) and `--requests` (default 50) times
 * warm, over HTTP on loopback; the same for `/analytics/rollup?days=90` and
 * `/behavior/rollup?days=90`. Prints min / median / p95 / max in ms, and median ÷ 200 ms.
 *
 * `--history-days 180` generates the previous 90 days as well (at the same rate: 2,000,000 events),
 * as a hot store in steady state holds them; the distinct counts then cover both windows.
 * Before the routes, the distinct counts (`mau`, `mauPrev`, `dauToday`) are timed side by side: the
 * scan of the hot store they used to be, and `analytics.end_user_active_days`; both must agree.
 * Run (embedded PGlite): node --import tsx bench/audit-analytics.ts [--events N] [--requests N] [--history-days 90|180]
 * On a PostgreSQL server: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/audit-analytics.ts;
 * bash .ci/pg-server.sh stop "$PGTMP"
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { coreRefs } from '../core/core-refs.ts';
import { DAY_MS, utcDay, toAuditTimestamp, type AuditService, type SealedAuditRecord } from '../core/index.ts';
import { rollUpDay } from '../plugins/analytics/day-rollup.ts';
import { addActiveDays, countActiveUsers } from '../plugins/analytics/active-days.ts';
import type { ActivityRow } from '../plugins/analytics/activity-row.ts';
import { analyticsRefs, type EndUserActivity } from '../plugins/analytics/api.ts';
import { countryOf } from '../plugins/analytics/geoip-country.ts';
import { TestAerie } from '../test/helpers/harness.ts';
import { auditRefs, type BatchFiles } from '../plugins/audit/api.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const EVENTS = arg('events', 1_000_000);
const REQUESTS = arg('requests', 50);
const DAYS = 90;
/** Days of history generated (at the same rate per day): 180 also fills the previous window, as a hot store in steady state holds it. */
const HISTORY = Math.min(180, Math.max(DAYS, arg('history-days', DAYS)));
const TARGET_MS = 200;
/** First seq of the hot-store rows the bench writes directly (past any chain position it seals). */
const BENCH_SEQ = 1_000_000_000;

const IPS = ['81.2.69.160', '8.8.8.8', '1.0.16.1', '2.16.0.1', '5.39.0.1', '41.0.0.1', '49.0.0.1', '58.0.0.1', '62.0.0.1', '77.0.0.1', '91.0.0.1', '101.0.0.1', '121.0.0.1', '151.0.0.1', '177.0.0.1', '187.0.0.1', '190.0.0.1', '200.0.0.1'];
const METHODS = ['passkey', 'email_code', 'google', 'github'];
const REASONS = ['unknown_account', 'invalid_code', 'expired_code', 'passkey_rejected'];
const PATHS = Array.from({ length: 400 }, (_, i) => `/page/${i}`);
const REFERRERS = Array.from({ length: 60 }, (_, i) => `https://site${i}.example.com/post`);
const OTHER = ['org.member.invited', 'org.role.assigned', 'org.file.uploaded', 'app.order.placed', 'app.cart.updated'];

/** A deterministic pseudo-random sequence (xorshift32), so every run generates the same events. */
let seed = 2463534242;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)];

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { min: s[0], median: q(0.5), p95: q(0.95), max: s.at(-1)! };
};
const fmt = (n: number) => n.toFixed(1).padStart(8);

/**
 * The projector's write cost per page, side by side: 1,000 hot-store rows (800 logins of today) in
 * one transaction, alone and with their active days, for a scratch organization removed afterwards.
 * @returns median ms of each.
 */
async function projectorWrites(aerie: TestAerie, users: Array<{ id: string; email: string }>, groups: string[]): Promise<{ alone: number; withDays: number }> {
  const scratch = randomUUID();
  const ms: Record<'alone' | 'withDays', number[]> = { alone: [], withDays: [] };
  let seq = 0;
  for (let round = 0; round < 20; round++) {
    for (const mode of ['alone', 'withDays'] as const) {
      const rows: ActivityRow[] = Array.from({ length: 1000 }, (_, i) => {
        const user = pick(users);
        return { orgId: scratch, seq: ++seq, kind: i % 5 === 0 ? 'failure' : 'login', appGroupId: pick(groups), endUserId: i % 5 === 0 ? null : user.id, email: user.email, method: 'passkey', reason: null, ip: pick(IPS), occurredAt: new Date() };
      });
      const a = performance.now();
      await aerie.kernel.db.transaction(async (trx) => {
        await trx('analytics.end_user_activity').insert(rows);
        if (mode === 'withDays') await addActiveDays(trx, rows);
      });
      ms[mode].push(performance.now() - a);
    }
  }
  for (const table of ['end_user_activity', 'end_user_active_days']) await aerie.sql(`delete from analytics.${table} where org_id = ?`, [scratch]);
  return { alone: stats(ms.alone).median, withDays: stats(ms.withDays).median };
}

async function main(): Promise<void> {
  const aerie = await TestAerie.start({});
  try {
    const token = await aerie.signIn('owner@example.com');
    const org = (await aerie.request('POST', '/api/org/create', { token, body: { name: 'bench', slug: 'bench' } })).body.id as string;
    await aerie.sql(`insert into orgs.addons (org_id, addon_key, enabled_at) values (?, 'addon.audit_analytics', now())`, [org]);
    const groups: string[] = [];
    for (const name of ['Shop', 'Blog', 'Admin']) groups.push((await aerie.request('POST', '/api/org/bench/app-groups', { token, body: { name } })).body.id);
    const users = Array.from({ length: 20_000 }, () => ({ id: randomUUID(), email: `u${Math.floor(rnd() * 1e9)}@users.test` }));
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const perDay = Math.floor(EVENTS / DAYS);
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);

    let rollupMs = 0;
    let hotRows = 0;
    let sealed = 0;
    const t0 = performance.now();
    for (let d = HISTORY; d >= 1; d--) {
      const dayStart = today - d * DAY_MS;
      const day = utcDay(dayStart);
      const records: SealedAuditRecord[] = [];
      const activity: Array<Record<string, unknown>> = [];
      for (let i = 0; i < perDay; i++) {
        const at = dayStart + Math.floor((i / perDay) * DAY_MS);
        const r = rnd();
        const group = pick(groups);
        const user = pick(users);
        const ip = pick(IPS);
        let eventType: string;
        let businessData: Record<string, unknown>;
        if (r < 0.1) {
          eventType = 'org.end_user.signed_in';
          businessData = { endUserId: user.id, appGroupId: group, clientKey: 'client_bench', method: pick(METHODS), email: user.email, ip };
          activity.push({ orgId: org, kind: 'login', appGroupId: group, endUserId: user.id, email: user.email, method: businessData.method, reason: null, ip, occurredAt: new Date(at) });
        } else if (r < 0.12) {
          eventType = 'org.end_user.sign_in_failed';
          businessData = { appGroupId: group, method: 'email_code', reason: pick(REASONS), email: user.email, ip };
          activity.push({ orgId: org, kind: 'failure', appGroupId: group, endUserId: null, email: user.email, method: 'email_code', reason: businessData.reason, ip, occurredAt: new Date(at) });
        } else if (r < 0.125) {
          eventType = 'org.end_user.created';
          businessData = { endUserId: user.id, appGroupId: group, source: 'self_signup' };
          activity.push({ orgId: org, kind: 'signup', appGroupId: group, endUserId: user.id, email: user.email, method: null, reason: null, ip: null, occurredAt: new Date(at) });
        } else if (r < 0.825) {
          eventType = 'behavior.page_view';
          businessData = { path: pick(PATHS), referrer: rnd() < 0.3 ? pick(REFERRERS) : undefined, utmSource: rnd() < 0.1 ? 'newsletter' : undefined, dwellMs: Math.floor(rnd() * 120_000), visitorId: `v${Math.floor(rnd() * 50_000)}`, ip };
        } else {
          eventType = pick(OTHER);
          businessData = { n: i };
        }
        records.push({
          id: randomUUID(), orgId: org, seq: i + 1, eventType, occurredAt: toAuditTimestamp(at), actor: { type: eventType.startsWith('behavior.') ? 'apiKey' : 'system', id: 'bench' },
          appGroupId: eventType.startsWith('org.end_user.') ? undefined : group, businessData: JSON.parse(JSON.stringify(businessData)), sealedAt: toAuditTimestamp(at), payloadHash: '', prevHash: '', chainHash: '',
        });
      }
      const r0 = performance.now();
      const rolled = rollUpDay(day, records, countryOf);
      rollupMs += performance.now() - r0;
      const rows = [['', rolled.org] as const, ...Object.entries(rolled.appGroups)].map(([appGroupId, body]) => ({ orgId: org, appGroupId, day, body: JSON.stringify(body), dayFileSha256: 'bench', createdAt: new Date() }));
      await aerie.kernel.db.knex('analytics.rollups').insert(rows);
      // Seqs far past the chain's, so the projector's rows of the sealed days below do not collide.
      const hot = activity.map((a, j) => ({ ...a, seq: BENCH_SEQ + hotRows + j + 1 }) as ActivityRow);
      await aerie.kernel.db.transaction(async (trx) => {
        for (let i = 0; i < hot.length; i += 2000) await trx('analytics.end_user_activity').insert(hot.slice(i, i + 2000));
        await addActiveDays(trx, hot);
      });
      hotRows += activity.length;
      // The last 3 days (orgEventTypes' window) are also sealed on the chain.
      if (d <= 2) {
        for (let i = 0; i < records.length; i += 1000) {
          await audit.ingest(org, records.slice(i, i + 1000).map((x) => ({ eventType: x.eventType, occurredAt: new Date(Date.now() - 60_000), actor: x.actor, businessData: x.businessData })));
        }
        sealed += records.length;
      }
    }
    await aerie.kernel.auditSealer.drain();
    await aerie.kernel.container.resolve<EndUserActivity>(analyticsRefs.activity.id).drain();
    // The raw batch archive and the checkpoints catch up on what was just sealed (they would have long
    // before anyone reads a 90-day window; left to their timers they stalled timed requests for 0.2–1 s).
    await aerie.kernel.auditCheckpointer.flush();
    await aerie.kernel.container.resolve<BatchFiles>(auditRefs.batchFiles.id).drain();
    const writes = await projectorWrites(aerie, users, groups);
    // What autovacuum would have done by the time anyone reads a 90-day window.
    for (const table of ['end_user_activity', 'end_user_active_days', 'rollups']) await aerie.sql(`vacuum analyze analytics.${table}`);
    const [shape] = await aerie.sql(`select count(*) filter (where kind = 'login')::int as logins, count(distinct end_user_id) filter (where kind = 'login')::int as users,
      count(distinct (end_user_id, (occurred_at at time zone 'UTC')::date)) filter (where kind = 'login')::int as "userDays",
      (select count(*)::int from analytics.end_user_active_days where org_id = ?) as "activeDayRows" from analytics.end_user_activity where org_id = ?`, [org, org]);
    console.log(`set-up: ${(perDay * HISTORY).toLocaleString('en')} events over ${HISTORY} days in ${((performance.now() - t0) / 1000).toFixed(1)} s; hot end-user store ${hotRows.toLocaleString('en')} rows; sealed on the chain ${sealed.toLocaleString('en')}`);
    console.log(`logins ${shape.logins.toLocaleString('en')} by ${shape.users.toLocaleString('en')} distinct end users (${(shape.logins / shape.users).toFixed(1)} each), ${shape.userDays.toLocaleString('en')} distinct (user, day) pairs; active-days rows ${shape.activeDayRows.toLocaleString('en')} (organization + app groups)`);
    console.log(`projector page of 1,000 hot-store rows (800 logins), 20 of each alternated: insert alone median ${writes.alone.toFixed(1)} ms; with active days ${writes.withDays.toFixed(1)} ms`);
    console.log(`rollUpDay (one thread, countries included): ${Math.round((perDay * HISTORY) / (rollupMs / 1000)).toLocaleString('en')} events/s`);

    const time = async (path: string) => {
      const a = performance.now();
      const res = await aerie.request('GET', path, { token });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return { ms: performance.now() - a, body: res.body };
    };
    // The distinct counts of /analytics?days=90 side by side: the hot-store scan the active-days table replaced, and the table.
    const todayDay = utcDay(today);
    const start = utcDay(today - (DAYS - 1) * DAY_MS);
    const prevStart = utcDay(today - (2 * DAYS - 1) * DAY_MS);
    const scan = async () => (await aerie.sql(`with u as (select end_user_id, app_group_id, bool_or(occurred_at >= ?::date) as cur, bool_or(occurred_at < ?::date) as prev, bool_or(occurred_at >= ?::date) as today
        from analytics.end_user_activity where org_id = ? and kind = 'login' and end_user_id is not null and occurred_at >= ?::date group by end_user_id, app_group_id)
      select count(distinct end_user_id) filter (where cur)::int as mau, count(distinct end_user_id) filter (where prev)::int as "mauPrev", count(distinct end_user_id) filter (where today)::int as "dauToday" from u`,
    [start, start, todayDay, org, prevStart]))[0];
    const table = async () => {
      const d = await countActiveUsers(aerie.kernel.db, { orgId: org, start, prevStart, today: todayDay });
      return { mau: d.mau, mauPrev: d.mauPrev, dauToday: d.dauToday };
    };
    const side: Record<string, number[]> = { scan: [], table: [] };
    const results: Record<string, unknown> = {};
    for (let i = 0; i < 21; i++) {
      for (const [name, f] of [['scan', scan], ['table', table]] as const) {
        const a = performance.now();
        results[name] = await f();
        side[name].push(performance.now() - a);
      }
    }
    const [sScan, sTable] = [stats(side.scan), stats(side.table)];
    console.log(`\ndistinct counts (mau, mauPrev, dauToday; 21 runs alternated): hot-store scan median ${sScan.median.toFixed(1)} ms, p95 ${sScan.p95.toFixed(1)}; active-days table median ${sTable.median.toFixed(1)} ms, p95 ${sTable.p95.toFixed(1)}; scan ÷ table ${(sScan.median / sTable.median).toFixed(1)}×`);
    console.log(`  scan ${JSON.stringify(results.scan)} table ${JSON.stringify(results.table)} ${JSON.stringify(results.scan) === JSON.stringify(results.table) ? 'equal' : 'DIFFER'}`);

    console.log(`\n${'route (days=90)'.padEnd(42)}     cold      min   median      p95      max   median/${TARGET_MS}ms`);
    for (const path of ['/api/v1/admin/audit/analytics?orgSlug=bench&days=90', '/api/v1/admin/audit/analytics/rollup?orgSlug=bench&days=90', '/api/v1/admin/audit/behavior/rollup?orgSlug=bench&days=90']) {
      const cold = await time(path);
      const warm: number[] = [];
      for (let i = 0; i < REQUESTS; i++) warm.push((await time(path)).ms);
      const s = stats(warm);
      console.log(`${path.replace('/api/v1/admin/audit', '').replace('?orgSlug=bench&days=90', '').padEnd(42)} ${fmt(cold.ms)} ${fmt(s.min)} ${fmt(s.median)} ${fmt(s.p95)} ${fmt(s.max)}   ${(s.median / TARGET_MS).toFixed(2)}`);
      if (path.includes('/analytics?')) console.log(`  (windowSource ${cold.body.windowSource}, covered ${cold.body.rollupCoveredDates}/${cold.body.rollupRequestedDates}, kpi.logins ${cold.body.kpi.logins}, mau ${cold.body.kpi.mau}, mauPrev ${cold.body.kpi.mauPrev}, dauToday ${cold.body.kpi.dauToday})`);
    }
    console.log(`\nload average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}; database ${process.env.TEST_DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'}`);
  } finally {
    await aerie.close();
  }
}

await main();
