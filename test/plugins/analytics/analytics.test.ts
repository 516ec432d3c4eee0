import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { auditRefs, type DayFiles } from '../../../plugins/audit/api.ts';
import { analyticsRefs } from '../../../plugins/analytics/api.ts';
import type { RollupBuilder } from '../../../plugins/analytics/rollups.ts';
import type { ActivityProjector } from '../../../plugins/analytics/activity-projector.ts';
import { purgeHotStore, ROLLUP_JOB } from '../../../plugins/analytics/rollup-job.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { backfillActiveDays } from '../../../migrations/analytics/002_active_days.ts';
import { endUsersRefs, type EndUserSignInService, type EndUsersService } from '../../../plugins/endusers/api.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const TODAY = Math.floor(Date.now() / DAY) * DAY;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Day A is two days ago, day B yesterday (UTC); day C (three days ago) has no events. */
const [A, B, C, T] = [day(TODAY - 2 * DAY), day(TODAY - DAY), day(TODAY - 3 * DAY), day(TODAY)];
const GB = '81.2.69.160';
const US = '8.8.8.8';
/** End users' ids (uuids, as the platform writes them). */
const U = Object.fromEntries(['u1', 'u2', 'u3', 'u4', 'u9', 'z1'].map((u) => [u, randomUUID()]));

describe('audit analytics: rollups from day files, /analytics, /analytics/rollup, /behavior/rollup, /stats/forensic', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date(TODAY - 2 * DAY + 9 * HOUR));
  const tokens: Record<string, string> = {};
  const orgs: Record<string, string> = {};
  let group: string;
  let zetaGroup: string;

  const append = async (orgId: string, events: Array<[string, Record<string, unknown>]>) => {
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, events.map(([eventType, businessData]) => ({
      orgId, eventType, actor: { type: 'system' as const, id: 'test' }, occurredAt: clock.now(), businessData: businessData as never,
    }))));
    await aerie.kernel.auditSealer.drain();
  };
  const get = (path: string, who = 'owner') => aerie.request('GET', path, { token: tokens[who] });
  const login = (user: string, method: string, ip: string, g = group, provider?: string) => ['org.end_user.signed_in', { endUserId: U[user], appGroupId: g, clientKey: 'client_x', method, ...(provider ? { provider } : {}), ip, email: `${user}@users.test` }] as [string, Record<string, unknown>];
  const failure = (reason: string, email: string, ip: string) => ['org.end_user.sign_in_failed', { appGroupId: group, method: 'email_code', reason, email, ip }] as [string, Record<string, unknown>];
  const view = (path: string, extra: Record<string, unknown>) => ['behavior.page_view', { path, ...extra }] as [string, Record<string, unknown>];

  beforeAll(async () => {
    aerie = await TestAerie.start({ clock });
    for (const who of ['owner', 'member', 'zetaOwner']) tokens[who] = await aerie.signIn(`${who}@example.com`);
    for (const [slug, who] of [['acme', 'owner'], ['zeta', 'zetaOwner']]) {
      const res = await aerie.request('POST', '/api/org/create', { token: tokens[who], body: { name: slug, slug } });
      expect(res.status).toBe(201);
      orgs[slug] = res.body.id;
    }
    await aerie.sql(
      `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
       select gen_random_uuid(), o.id, a.id, 'Member', 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = 'acme' and a.email = 'member@example.com'`,
    );
    const g = await aerie.request('POST', '/api/org/acme/app-groups', { token: tokens.owner, body: { name: 'Shop' } });
    expect(g.status).toBe(201);
    group = g.body.id;
    const z = await aerie.request('POST', '/api/org/zeta/app-groups', { token: tokens.zetaOwner, body: { name: 'Zeta app' } });
    zetaGroup = z.body.id;

    // Day A (two days ago): 3 logins (u1 twice), 2 failures, 1 self-signup (+1 by an admin), 4 page views, 2 other events.
    await append(orgs.acme, [
      login('u1', 'passkey', GB), login('u1', 'passkey', GB), login('u2', 'email_code', US),
      failure('unknown_account', 'nobody@users.test', US), failure('invalid_code', 'u1@users.test', GB),
      ['org.end_user.created', { endUserId: U.u2, appGroupId: group, via: 'self_signup' }], ['org.end_user.created', { endUserId: U.u9, via: 'admin' }],
      view('/', { referrer: 'https://news.example.com/a', utmSource: 'Newsletter', dwellMs: 1000, visitorId: 'v1', ip: GB, endUserId: U.u1 }),
      view('/', { referrer: 'https://news.example.com/b', dwellMs: 2000, visitorId: 'v1', ip: GB }),
      view('/pricing', { referrer: 'not a url', dwellMs: 3000, visitorId: 'v2', ip: US }),
      view('/', { visitorId: 'v3', dwellMs: 1e12 }),
      ['org.thing.done', {}], ['org.thing.done', {}],
    ]);
    await append(orgs.acme, [['payment.charge.succeeded', { amount: 100 }]]);
    await append(orgs.zeta, [login('z1', 'passkey', US, zetaGroup), view('/z', { ip: US })]);
    // Day B (yesterday): 1 login, 1 failure.
    clock.advance(DAY / 1000);
    await append(orgs.acme, [login('u3', 'social', US, undefined, 'github'), failure('unknown_account', 'ghost@users.test', US)]);
    await append(orgs.zeta, [view('/z', {})]);
    // Today, 00:30: days A and B are complete; 2 logins and 1 signup today.
    clock.advance(15 * 3600 + 30 * 60);
    await append(orgs.acme, [login('u1', 'passkey', GB), login('u1', 'passkey', GB), ['org.end_user.created', { endUserId: U.u4, appGroupId: group, via: 'self_signup' }]]);
    // gamma: created today, so no day file and no rollup yet.
    orgs.gamma = (await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'gamma', slug: 'gamma' } })).body.id;
    await append(orgs.gamma, [login('u1', 'passkey', GB, null as never)]);
    const compacted = await aerie.kernel.container.resolve<DayFiles>(auditRefs.dayFiles.id).compactPending();
    expect(compacted.failed).toEqual([]);
    expect(compacted.written).toHaveLength(4);
    await aerie.kernel.container.resolve<ActivityProjector>(analyticsRefs.activity.id).drain();
  });
  afterAll(async () => {
    await aerie?.close();
  });

  const builder = () => aerie.kernel.container.resolve<RollupBuilder>(analyticsRefs.rollups.id);
  const drainProjector = () => aerie.kernel.container.resolve<ActivityProjector>(analyticsRefs.activity.id).drain();
  /**
   * (app group or '' for the organization, end user, day) of `analytics.end_user_active_days`, one per
   * day of each multirange; a row whose `last_day` is not its last day is left out (so it shows as a difference).
   */
  const activeDays = (orgId: string) => aerie.sql(
    `select app_group_id as g, end_user_id as u, d::date::text as d from analytics.end_user_active_days, unnest(days) r, generate_series(lower(r), upper(r) - 1, interval '1 day') d
     where org_id = ? and last_day = upper(days) - 1 order by 1, 2, 3`, [orgId]);
  /** The same triples computed from the hot store's logins. */
  const hotDays = (orgId: string) => aerie.sql(
    `select distinct g, end_user_id as u, (occurred_at at time zone 'UTC')::date::text as d from analytics.end_user_activity cross join lateral (values (''), (app_group_id)) v(g)
     where org_id = ? and kind = 'login' and end_user_id is not null and g is not null order by 1, 2, 3`, [orgId]);

  it('a day file altered in the blob store is refused: no rollup for it, the other days are built, the rerun builds nothing twice', async () => {
    const [zetaB] = await aerie.sql(`select blob_key as "blobKey" from audit.day_files where org_id = ? and day = ?`, [orgs.zeta, B]);
    const file = join(aerie.dataDir, 'blobs', zetaB.blobKey);
    const original = readFileSync(file);
    const altered = Buffer.from(original);
    altered[altered.length - 20] ^= 1;
    writeFileSync(file, altered);
    const first = await builder().buildPending();
    expect(first.failed).toEqual([{ orgId: orgs.zeta, day: B, error: expect.stringContaining('differs from the manifest') }]);
    expect(first.written).toHaveLength(3);
    expect(await aerie.sql(`select count(*)::int as n from analytics.rollups where org_id = ? and day = ?`, [orgs.zeta, B])).toEqual([{ n: 0 }]);
    writeFileSync(file, original);
    const second = await builder().buildPending();
    expect(second).toEqual({ written: [{ orgId: orgs.zeta, day: B }], failed: [] });
    expect(await builder().buildPending()).toEqual({ written: [], failed: [] });
    // The nightly schedule (00:20 UTC, caught up at start when missed) runs the same work through core.jobs.
    expect(await aerie.sql(`select cron, timezone from core_jobs.schedule where name = ?`, [ROLLUP_JOB])).toEqual([{ cron: '20 0 * * *', timezone: 'UTC' }]);
    await aerie.runSchedule(ROLLUP_JOB);
    expect(await builder().buildPending()).toEqual({ written: [], failed: [] });
  });

  it('day A rolls up to the hand-computed figures, per organization and per app group; no IP is stored', async () => {
    const rows = await aerie.sql(`select app_group_id as "appGroupId", body from analytics.rollups where org_id = ? and day = ? order by app_group_id`, [orgs.acme, A]);
    expect(rows.map((r: any) => r.appGroupId)).toEqual(['', group]);
    const org = rows[0].body;
    expect(org).toEqual({
      version: 1, day: A, totalEvents: 17,
      eventTypes: {
        'behavior.page_view': 4, 'org.end_user.created': 2, 'org.end_user.sign_in_failed': 2, 'org.end_user.signed_in': 3, 'org.thing.done': 2,
        'org.created': 1, 'org.app_group.created': 1, 'org.application.created': 1, // the organization's own set-up that day
        'payment.charge.succeeded': 1,
      },
      signIn: {
        logins: 3, failures: 2, signups: 1, activeUsers: 2, failureReasons: { invalid_code: 1, unknown_account: 1 }, providers: { passkey: 2, email_code: 1 },
        byAppGroup: { [group]: 3 }, users: { [U.u1]: 2, [U.u2]: 1 },
      },
      behavior: {
        pageViews: 4, dwellMs: 1000 + 2000 + 3000 + 86_400_000, visitors: 3, identifiedUsers: 1,
        pages: { '/': { views: 3, dwellMs: 3000 + 86_400_000 }, '/pricing': { views: 1, dwellMs: 3000 } },
        referrers: { 'news.example.com': 2 }, campaigns: { newsletter: 1 }, countries: { GB: 2, US: 1, unknown: 1 },
      },
    });
    // The app group's rollup holds its sign-in events only (the page views and others carry no app group).
    expect(rows[1].body.signIn).toEqual(org.signIn);
    expect(rows[1].body.totalEvents).toBe(8); // + the app group's and its application's creation
    expect(JSON.stringify(rows)).not.toContain(GB);
  });

  it('/analytics/rollup without the add-on: clamped to 3 completed days, days without a rollup omitted', async () => {
    const res = await get('/api/v1/admin/audit/analytics/rollup?orgSlug=acme&days=30');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      available: true, days: 3, coveredDates: 2, requestedDates: 3,
      daily: [{ date: A, logins: 3, failures: 2, totalEvents: 17 }, { date: B, logins: 1, failures: 1, totalEvents: 2 }],
      failureReasons: [{ reason: 'unknown_account', count: 2 }, { reason: 'invalid_code', count: 1 }],
      totals: { logins: 4, failures: 3, attempts: 7, failureRatePct: 42.9 },
    });
    // One day back (day C alone) has no rollup.
    await aerie.sql(`insert into orgs.addons (org_id, addon_key, enabled_at) values (?, 'addon.audit_analytics', now())`, [orgs.zeta]);
    const none = await aerie.request('GET', '/api/v1/admin/audit/analytics/rollup?orgSlug=zeta&days=1', { token: tokens.zetaOwner });
    expect(none.body).toEqual({ available: true, days: 1, coveredDates: 1, requestedDates: 1, daily: [{ date: B, logins: 0, failures: 0, totalEvents: 1 }], failureReasons: [], totals: { logins: 0, failures: 0, attempts: 0, failureRatePct: 0 } });
  });

  it('names the organization by orgId (spec 01) as by orgSlug, on every analytics read; neither, or two different organizations, is 400', async () => {
    for (const path of ['/api/v1/admin/audit/analytics/rollup', '/api/v1/admin/audit/analytics', '/api/v1/admin/audit/behavior/rollup']) {
      const bySlug = await get(`${path}?orgSlug=acme&days=3`);
      const byId = await get(`${path}?orgId=${orgs.acme}&days=3`);
      expect(byId.status, path).toBe(200);
      expect(byId.body, path).toEqual(bySlug.body);
      expect((await get(`${path}?orgId=${orgs.acme}&orgSlug=acme&days=3`)).status, path).toBe(200);
      expect((await get(`${path}?days=3`)).body, path).toMatchObject({ error: 'VALIDATION_FAILED', field: 'orgId' });
      expect((await get(`${path}?orgId=${orgs.acme}&orgSlug=zeta`)).body, path).toMatchObject({ error: 'VALIDATION_FAILED', field: 'orgSlug' });
      // Another organization's id is 404, as its slug is.
      expect((await get(`${path}?orgId=${orgs.zeta}`)).status, path).toBe(404);
      expect((await get(`${path}?orgId=00000000-0000-4000-8000-000000000000`)).status, path).toBe(404);
    }
  });

  it('/analytics without the add-on: a 3-day hot window, addonActive false, freeWindowDays 3', async () => {
    const res = await get('/api/v1/admin/audit/analytics?orgSlug=acme&days=60', 'member');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      days: 3, addonActive: false, freeWindowDays: 3, windowSource: 'hot', rollupCoveredDates: 0, rollupRequestedDates: 0, orgAuditWindowDays: 3,
      appGroups: [{ id: group, name: 'Shop', eventsEnabled: true }],
      kpi: { mau: 3, logins: 6, signups: 2, dauToday: 1, mauPrev: 0, loginsPrev: 0, signupsPrev: 0 },
      daily: [{ date: A, logins: 3, dau: 2, signups: 1 }, { date: B, logins: 1, dau: 1, signups: 0 }, { date: T, logins: 2, dau: 1, signups: 1 }],
      providers: [{ provider: 'passkey', count: 4 }, { provider: 'email_code', count: 1 }, { provider: 'github', count: 1 }],
      byAppGroup: [{ appGroupId: group, name: 'Shop', activeUsers: 3, logins: 6 }],
      topIps: [{ ip: GB, count: 5, users: 1 }, { ip: US, count: 4, users: 4 }], // users: distinct emails (or end users) attempting
    });
    // Ties (one login each) are ordered by end-user id.
    expect(res.body.topUsers[0]).toEqual({ email: 'u1@users.test', displayName: null, logins: 4 });
    expect(res.body.topUsers.slice(1).map((u: any) => [u.email, u.logins]).sort()).toEqual([['u2@users.test', 1], ['u3@users.test', 1]]);
    const types = Object.fromEntries(res.body.orgEventTypes.map((t: any) => [t.eventType, [t.count, t.sealedCount]]));
    expect(types['org.end_user.signed_in']).toEqual([6, 6]);
    expect(types['behavior.page_view']).toEqual([4, 4]);
    expect(types['payment.charge.succeeded']).toBeUndefined(); // the Owner's alone
    const owners = await get('/api/v1/admin/audit/analytics?orgSlug=acme');
    expect(owners.body.orgEventTypes).toContainEqual({ eventType: 'payment.charge.succeeded', count: 1, sealedCount: 1 });
  });

  it('/analytics with the add-on over 30 days: past days from rollups, today from the hot store, covered vs requested dates', async () => {
    await aerie.sql(`insert into orgs.addons (org_id, addon_key, enabled_at) values (?, 'addon.audit_analytics', now())`, [orgs.acme]);
    const res = await get('/api/v1/admin/audit/analytics?orgSlug=acme');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ days: 30, addonActive: true, windowSource: 'rollup', rollupRequestedDates: 29, rollupCoveredDates: 2 });
    expect(res.body.daily).toHaveLength(30);
    const byDate = Object.fromEntries(res.body.daily.map((d: any) => [d.date, d]));
    expect(byDate[A]).toEqual({ date: A, logins: 3, dau: 2, signups: 1 });
    expect(byDate[C]).toEqual({ date: C, logins: 0, dau: 0, signups: 0 }); // missing: charted as zero, declared by the counts
    expect(byDate[T]).toEqual({ date: T, logins: 2, dau: 1, signups: 1 });
    expect(res.body.kpi).toEqual({ mau: 3, mauPrev: 0, logins: 6, loginsPrev: 0, signups: 2, signupsPrev: 0, dauToday: 1 });
    expect(res.body.providers).toEqual([{ provider: 'passkey', count: 4 }, { provider: 'email_code', count: 1 }, { provider: 'github', count: 1 }]);
    expect(res.body.byAppGroup).toEqual([{ appGroupId: group, name: 'Shop', activeUsers: 3, logins: 6 }]);
    // From rollups, top users are end-user ids: email and name come from the directory (these ids are not in it).
    expect(res.body.topUsers[0]).toEqual({ email: null, displayName: null, logins: 4 });
    // An app-group view reads the hot store; an organization without rollups falls back to it.
    const scoped = await get(`/api/v1/admin/audit/analytics?orgSlug=acme&days=30&appGroupId=${group}`);
    expect(scoped.body).toMatchObject({ windowSource: 'hot', kpi: { logins: 6 } });
    await aerie.sql(`insert into orgs.addons (org_id, addon_key, enabled_at) values (?, 'addon.audit_analytics', now())`, [orgs.gamma]);
    const fallback = await get('/api/v1/admin/audit/analytics?orgSlug=gamma&days=10');
    expect(fallback.body).toMatchObject({ windowSource: 'hot_fallback', rollupCoveredDates: 0, rollupRequestedDates: 9, kpi: { logins: 1 } });
  });

  it('/behavior/rollup: pages, dwell time, referrers, campaigns and countries; visitor totals named upper bounds', async () => {
    const res = await get('/api/v1/admin/audit/behavior/rollup?orgSlug=acme&days=90', 'member');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      available: true, days: 90, appGroupId: null, coveredDates: 2, requestedDates: 90,
      totals: { pageViews: 4, dwellMs: 86_406_000, avgDwellMs: 21_601_500, visitorsUpperBound: 3, identifiedUsersUpperBound: 1 },
      pages: [{ path: '/', views: 3, dwellMs: 86_403_000, avgDwellMs: 28_801_000 }, { path: '/pricing', views: 1, dwellMs: 3000, avgDwellMs: 3000 }],
      referrers: [{ host: 'news.example.com', count: 2 }], campaigns: [{ source: 'newsletter', count: 1 }],
      countries: [{ country: 'GB', views: 2 }, { country: 'US', views: 1 }, { country: 'unknown', views: 1 }],
    });
    const scoped = await get(`/api/v1/admin/audit/behavior/rollup?orgSlug=acme&appGroupId=${group}`);
    expect(scoped.body).toMatchObject({ available: true, appGroupId: group, totals: { pageViews: 0 } });
  });

  it('rollup cache: a completed day is served from memory; a missing day is remembered 10 minutes', async () => {
    const before = await get('/api/v1/admin/audit/analytics/rollup?orgSlug=acme&days=3');
    await aerie.sql(`update analytics.rollups set body = jsonb_set(body, '{signIn,logins}', '99') where org_id = ? and day = ? and app_group_id = ''`, [orgs.acme, A]);
    await aerie.sql(`insert into analytics.rollups (org_id, app_group_id, day, body, day_file_sha256, created_at)
      select org_id, app_group_id, ?, body, day_file_sha256, now() from analytics.rollups where org_id = ? and day = ? and app_group_id = ''`, [C, orgs.acme, B]);
    expect((await get('/api/v1/admin/audit/analytics/rollup?orgSlug=acme&days=3')).body).toEqual(before.body);
    clock.advance(11 * 60);
    const later = await get('/api/v1/admin/audit/analytics/rollup?orgSlug=acme&days=3');
    expect(later.body.coveredDates).toBe(3);
    expect(later.body.daily[1]).toEqual({ date: A, logins: 3, failures: 2, totalEvents: 17 }); // still the cached completed day
  });

  it('/stats/forensic: an end user\'s trail by email within an app group, Owner or Admin only', async () => {
    const res = await get(`/api/v1/admin/audit/stats/forensic?orgSlug=acme&appGroupId=${group}&email=U1@users.test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: 'u1@users.test', appGroupId: group, days: 30, truncated: false });
    expect(res.body.items.map((i: any) => [i.kind, i.method, i.reason, i.ip])).toEqual([
      ['login', 'passkey', null, GB], ['login', 'passkey', null, GB], ['failure', 'email_code', 'invalid_code', GB], ['login', 'passkey', null, GB], ['login', 'passkey', null, GB],
    ]);
    const member = await get(`/api/v1/admin/audit/stats/forensic?orgSlug=acme&appGroupId=${group}&email=u1@users.test`, 'member');
    expect(member).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
  });

  it('cross-organization: another organization\'s slug or app group answers 404, bad input 400', async () => {
    const table: Array<[string, string, number]> = [
      ['/api/v1/admin/audit/analytics?orgSlug=acme', 'zetaOwner', 404],
      ['/api/v1/admin/audit/analytics/rollup?orgSlug=acme', 'zetaOwner', 404],
      ['/api/v1/admin/audit/behavior/rollup?orgSlug=acme', 'zetaOwner', 404],
      [`/api/v1/admin/audit/stats/forensic?orgSlug=acme&appGroupId=${group}&email=u1@users.test`, 'zetaOwner', 404],
      [`/api/v1/admin/audit/analytics?orgSlug=acme&appGroupId=${zetaGroup}`, 'owner', 404],
      [`/api/v1/admin/audit/behavior/rollup?orgSlug=acme&appGroupId=${zetaGroup}`, 'owner', 404],
      [`/api/v1/admin/audit/stats/forensic?orgSlug=acme&appGroupId=${zetaGroup}&email=u1@users.test`, 'owner', 404],
      ['/api/v1/admin/audit/analytics?orgSlug=acme&days=abc', 'owner', 400],
      ['/api/v1/admin/audit/analytics?orgSlug=acme&appGroupId=not-a-uuid', 'owner', 400],
    ];
    for (const [path, who, status] of table) expect([path, (await get(path, who)).status]).toEqual([path, status]);
    const clamped = await get('/api/v1/admin/audit/analytics/rollup?orgSlug=acme&days=-5');
    expect(clamped.body.days).toBe(1);
  });

  it('the platform\'s own sign-in events reach the hot end-user store (provider for social, email, IP); an API key cannot forge them', async () => {
    const resolve = <T>(id: string) => aerie.kernel.container.resolve<T>(id);
    const ann = await resolve<EndUsersService>(endUsersRefs.endUsers.id).create(orgs.acme, { email: 'Ann@Example.test', appGroupId: group });
    const signIn = resolve<EndUserSignInService>(endUsersRefs.signIn.id);
    expect(await signIn.signedIn(orgs.acme, ann.id, group, 'social', 'client_x', { ip: US, provider: 'google' })).toMatchObject({ id: ann.id });
    expect(await signIn.signInFailed(orgs.acme, { appGroupId: group, method: 'email_code', reason: 'unknown_account', email: 'Nobody@Example.test', ip: GB })).toBe(true);
    // A forged sign-in through batch ingestion is sealed, but it is not a sign-in.
    const audit = resolve<AuditService>(coreRefs.audit.id);
    await audit.ingest(orgs.acme, [{ eventType: 'org.end_user.signed_in', actor: { type: 'apiKey', id: 'k' }, businessData: { endUserId: ann.id, appGroupId: group, method: 'passkey', email: 'ann@example.test', ip: GB } }]);
    await aerie.kernel.auditSealer.drain();
    await resolve<ActivityProjector>(analyticsRefs.activity.id).drain();
    const rows = await aerie.sql(
      `select kind, method, reason, email, ip, end_user_id as "endUserId", app_group_id as "appGroupId" from analytics.end_user_activity where org_id = ? and email in ('ann@example.test', 'nobody@example.test') order by seq`, [orgs.acme]);
    expect(rows).toEqual([
      { kind: 'login', method: 'google', reason: null, email: 'ann@example.test', ip: US, endUserId: ann.id, appGroupId: group },
      { kind: 'failure', method: 'email_code', reason: 'unknown_account', email: 'nobody@example.test', ip: GB, endUserId: null, appGroupId: group },
    ]);
  });

  it('the active-days table agrees with the hot store\'s logins (organization rows, app-group rows, no app group); the migration\'s backfill rebuilds it', async () => {
    for (const org of ['acme', 'zeta', 'gamma']) {
      const days = await activeDays(orgs[org]);
      expect(days.length).toBeGreaterThan(0);
      expect(days).toEqual(await hotDays(orgs[org]));
    }
    expect(await activeDays(orgs.gamma)).toEqual([{ g: '', u: U.u1, d: T }]); // a sign-in without an app group counts for the organization only
    const before = await activeDays(orgs.acme);
    await aerie.sql('delete from analytics.end_user_active_days where org_id = ?', [orgs.acme]);
    await backfillActiveDays(aerie.kernel.db.knex);
    expect(await activeDays(orgs.acme)).toEqual(before);
  });

  it('event collection off: the app group reports zeros, its sign-ins stay out of the hot store; Owner or Admin only, audited once', async () => {
    const path = `/api/v1/admin/audit/app-groups/${group}/events`;
    expect((await aerie.request('PUT', path, { token: tokens.member, body: { orgSlug: 'acme', enabled: false } }))).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
    expect((await aerie.request('PUT', `/api/v1/admin/audit/app-groups/${zetaGroup}/events`, { token: tokens.owner, body: { orgSlug: 'acme', enabled: false } })).status).toBe(404);
    expect((await aerie.request('PUT', path, { token: tokens.owner, body: { orgSlug: 'acme', enabled: 'no' } })).status).toBe(400);
    const off = await aerie.request('PUT', path, { token: tokens.owner, body: { orgSlug: 'acme', enabled: false } });
    expect(off).toMatchObject({ status: 200, body: { appGroupId: group, eventsEnabled: false, changed: true } });
    expect((await aerie.request('PUT', path, { token: tokens.owner, body: { orgSlug: 'acme', enabled: false } })).body.changed).toBe(false);
    await aerie.kernel.auditSealer.drain();
    expect((await aerie.sql(`select business_data as "d" from core.audit_events where org_id = ? and event_type = 'org.app_group.events_collection_changed'`, [orgs.acme])).map((r: any) => r.d)).toEqual([{ appGroupId: group, enabled: false }]);

    const before = await aerie.sql(`select count(*)::int as n from analytics.end_user_activity where org_id = ?`, [orgs.acme]);
    await append(orgs.acme, [login('u1', 'passkey', GB)]);
    await aerie.kernel.container.resolve<ActivityProjector>(analyticsRefs.activity.id).drain();
    expect(await aerie.sql(`select count(*)::int as n from analytics.end_user_activity where org_id = ?`, [orgs.acme])).toEqual(before);
    expect(await activeDays(orgs.acme)).toEqual(await hotDays(orgs.acme));
    const res = await get('/api/v1/admin/audit/analytics?orgSlug=acme&days=3');
    expect(res.body.appGroups).toEqual([{ id: group, name: 'Shop', eventsEnabled: false }]);
    expect(res.body.byAppGroup).toEqual([{ appGroupId: group, name: 'Shop', activeUsers: 0, logins: 0 }]);
    expect((await get(`/api/v1/admin/audit/analytics?orgSlug=acme&days=3&appGroupId=${group}`)).body).toMatchObject({ kpi: { logins: 0, mau: 0 }, topIps: [], topUsers: [] });
    expect((await aerie.request('PUT', path, { token: tokens.owner, body: { orgSlug: 'acme', enabled: true } })).body).toEqual({ appGroupId: group, eventsEnabled: true, changed: true });
  });

  it('the hot store keeps 181 days; /stats/forensic reads older days from the archive\'s day files', async () => {
    clock.advance(200 * 86_400);
    expect(await purgeHotStore(aerie.kernel.db, clock)).toBeGreaterThan(0);
    expect(await aerie.sql(`select count(*)::int as n from analytics.end_user_activity where org_id = ?`, [orgs.acme])).toEqual([{ n: 0 }]);
    expect(await activeDays(orgs.acme)).toEqual([]);
    tokens.owner = await aerie.signIn('owner@example.com');
    const path = `/api/v1/admin/audit/stats/forensic?orgSlug=acme&appGroupId=${group}&email=u1@users.test`;
    expect((await get(`${path}&days=30`)).body).toMatchObject({ items: [], archiveDays: 0, truncated: false });
    const old = await get(`${path}&days=366`);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ archiveDays: 2, truncated: false });
    // Day A's file, newest first (days B and today hold none of u1's: today was never compacted).
    expect(old.body.items.map((i: any) => [i.kind, i.method, i.reason, i.ip])).toEqual([['failure', 'email_code', 'invalid_code', GB], ['login', 'passkey', null, GB], ['login', 'passkey', null, GB]]);
    const limited = await get(`${path}&days=366&limit=2`);
    expect(limited.body).toMatchObject({ archiveDays: 2, truncated: true });
    expect(limited.body.items).toHaveLength(2);
  });

  it('distinct end users across app groups and windows; the purge trims the active days with the hot store', async () => {
    tokens.owner = await aerie.signIn('owner@example.com');
    orgs.delta = (await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'delta', slug: 'delta' } })).body.id;
    await aerie.sql(`insert into orgs.addons (org_id, addon_key, enabled_at) values (?, 'addon.audit_analytics', now())`, [orgs.delta]);
    const ids: string[] = [];
    for (const name of ['One', 'Two']) ids.push((await aerie.request('POST', '/api/org/delta/app-groups', { token: tokens.owner, body: { name } })).body.id);
    const d0 = day(clock.now().getTime());
    // Day 0: u1 signs in to both app groups, u2 to the first; day 2: u2 to the second.
    await append(orgs.delta, [login('u1', 'passkey', GB, ids[0]), login('u1', 'passkey', GB, ids[1]), login('u2', 'passkey', US, ids[0])]);
    clock.advance(2 * DAY / 1000);
    await append(orgs.delta, [login('u2', 'passkey', US, ids[1])]);
    await drainProjector();
    await append(orgs.delta, [login('u2', 'passkey', US, ids[1])]); // a day already recorded, projected in a later page
    await drainProjector();
    const d2 = day(clock.now().getTime());
    expect(await activeDays(orgs.delta)).toEqual(await hotDays(orgs.delta));
    expect((await activeDays(orgs.delta)).filter((r: any) => r.g === '')).toEqual([{ g: '', u: U.u1, d: d0 }, { g: '', u: U.u2, d: d0 }, { g: '', u: U.u2, d: d2 }].sort((a, b) => (a.u < b.u ? -1 : a.u > b.u ? 1 : 0)));
    const three = (await get('/api/v1/admin/audit/analytics?orgSlug=delta&days=3')).body;
    expect(three.kpi).toMatchObject({ mau: 2, mauPrev: 0, dauToday: 1, logins: 5 });
    expect(three.byAppGroup.map((g: any) => [g.name, g.activeUsers, g.logins]).sort()).toEqual([['One', 2, 2], ['Two', 2, 3]]);
    const two = (await get('/api/v1/admin/audit/analytics?orgSlug=delta&days=2')).body;
    expect(two.kpi).toMatchObject({ mau: 1, mauPrev: 2, dauToday: 1 });
    expect(two.byAppGroup.map((g: any) => [g.name, g.activeUsers]).sort()).toEqual([['One', 0], ['Two', 1]]);
    expect((await get(`/api/v1/admin/audit/analytics?orgSlug=delta&days=2&appGroupId=${ids[0]}`)).body.kpi).toMatchObject({ mau: 0, mauPrev: 2, dauToday: 0 });
    expect((await get(`/api/v1/admin/audit/analytics?orgSlug=delta&days=3&appGroupId=${ids[1]}`)).body.kpi).toMatchObject({ mau: 2, mauPrev: 0, dauToday: 1 });
    // 180 days on, the cutoff (181 days back) falls on day 1: day 0 leaves both stores, day 2 stays.
    clock.advance(180 * DAY / 1000);
    expect(await purgeHotStore(aerie.kernel.db, clock)).toBe(3);
    expect(await activeDays(orgs.delta)).toEqual([{ g: '', u: U.u2, d: d2 }, { g: ids[1], u: U.u2, d: d2 }].sort((a, b) => (a.g < b.g ? -1 : 1)));
    expect(await activeDays(orgs.delta)).toEqual(await hotDays(orgs.delta));
  });
});
