import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';

/**
 * `GET /api/v1/admin/audit/stats` and `/stats/quick` (docs/api/audit.md "Stats") against a
 * hand-computed fixture: known events on known UTC days → known figures; `payment.*` counted for
 * the Owner only; the window clamped to the plan's retention; heartbeats and events make members
 * active; another organization's events, members and heartbeats never count.
 */
describe('audit stats: dashboard and header figures of one organization', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'));
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const orgIds: Record<string, string> = {};
  let root: string;
  const KEY = '7d3c2a10-0000-4000-8000-00000000a11e';

  const setPlan = async (planKey: string) =>
    expect((await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: root, body: { planKey } })).status).toBe(200);
  const stats = (who: string, params: Record<string, string> = {}, path = 'stats') =>
    aerie.request('GET', `/api/v1/admin/audit/${path}?${new URLSearchParams({ orgSlug: 'acme', ...params })}`, { token: tokens[who] });
  const beat = (who: string, orgSlug = 'acme') => aerie.request('POST', '/api/v1/admin/audit/heartbeat', { token: tokens[who], body: { orgSlug } });
  const join = (email: string, slug: string, role: string) =>
    aerie.sql(
      `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
       select gen_random_uuid(), o.id, a.id, ?, 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = ? and a.email = ?`,
      [role, slug, email],
    );

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock, env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    root = await aerie.signIn('root@example.com');
    for (const who of ['owner', 'admin', 'member', 'quiet', 'idle', 'outsider', 'globex']) {
      tokens[who] = await aerie.signIn(`${who}@example.com`, who === 'owner' ? 'Olga Owner' : undefined);
    }
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.globex, body: { name: 'Globex', slug: 'globex' } })).status).toBe(201);
    await join('admin@example.com', 'acme', 'Admin');
    for (const who of ['member', 'quiet', 'idle']) await join(`${who}@example.com`, 'acme', 'Member');
    await join('admin@example.com', 'globex', 'Member');
    for (const a of await aerie.sql('select id, email from accounts.accounts')) ids[a.email.split('@')[0]] = a.id;
    for (const o of await aerie.sql('select id, slug from orgs.organizations')) orgIds[o.slug] = o.id;
    await aerie.kernel.auditSealer.drain();
    // Only the fixture's events: organization creation is not part of it.
    await aerie.sql('delete from core.audit_events where org_id = ?', [orgIds.acme]);
    await aerie.sql('delete from core.audit_heads where org_id = ?', [orgIds.acme]);
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    const acct = (who: string) => ({ type: 'account' as const, id: ids[who] });
    const key = { type: 'apiKey' as const, id: KEY };
    const sys = { type: 'system' as const, id: 'system' };
    const at = (iso: string) => new Date(`2026-11-${iso}Z`);
    const orgId = orgIds.acme;
    const ev = (eventType: string, actor: { type: 'account' | 'apiKey' | 'system'; id: string }, when: string, n = 1) =>
      Array.from({ length: n }, () => ({ orgId, eventType, actor, occurredAt: at(when) }));
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [
      // today, 2026-11-20 (now is 12:00)
      ...ev('org.role.created', acct('owner'), '20T10:00:00', 2),
      ...ev('org.member.invited', acct('admin'), '20T11:00:00'),
      ...ev('payment.charge', acct('member'), '20T09:00:00'),
      ...ev('app.order.placed', key, '20T08:00:00', 3),
      ...ev('org.webhook.disabled', sys, '20T07:00:00'),
      // yesterday: one inside the last 24 hours, one before
      ...ev('org.role.created', acct('owner'), '19T23:30:00'),
      ...ev('org.member.invited', acct('admin'), '19T05:00:00'),
      // three days ago
      ...ev('app.login', acct('member'), '17T15:00:00', 2),
      // ten days ago: outside a 7-day window
      ...ev('org.role.created', acct('owner'), '10T12:00:00'),
      // globex: never in acme's figures
      ...Array.from({ length: 5 }, () => ({ orgId: orgIds.globex, eventType: 'org.role.created', actor: acct('admin'), occurredAt: at('20T10:00:00') })),
    ]));
    await aerie.kernel.auditSealer.drain();
    // Heartbeats: quiet 40 s and the owner 20 s in acme; the admin 50 s in globex only.
    for (const who of ['quiet', 'owner']) await beat(who);
    await beat('admin', 'globex');
    clock.advance(20);
    await beat('owner');
    clock.advance(20);
    await beat('quiet');
    clock.advance(10);
    await beat('admin', 'globex');
  });
  afterAll(() => aerie?.close());

  it("gives the Owner every figure of the last 7 days (Pro), payment.* included", async () => {
    await setPlan('Pro');
    const res = await stats('owner');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body;
    expect(b.window).toEqual({ from: '2026-11-14T00:00:00.000Z', to: '2026-11-20T12:00:50.000Z', days: 7, requestedDays: 7, retentionDays: 7, clamped: false });
    expect(b.paymentEventsIncluded).toBe(true);
    expect(b.totals).toEqual({ events: 12, eventTypes: 6, actors: 5 });
    expect(b.daily).toEqual([
      { date: '2026-11-14', events: 0 }, { date: '2026-11-15', events: 0 }, { date: '2026-11-16', events: 0 },
      { date: '2026-11-17', events: 2 }, { date: '2026-11-18', events: 0 }, { date: '2026-11-19', events: 2 }, { date: '2026-11-20', events: 8 },
    ]);
    expect(b.topEventTypes).toEqual([
      { eventType: 'app.order.placed', count: 3 }, { eventType: 'org.role.created', count: 3 },
      { eventType: 'app.login', count: 2 }, { eventType: 'org.member.invited', count: 2 },
      { eventType: 'org.webhook.disabled', count: 1 }, { eventType: 'payment.charge', count: 1 },
    ]);
    const named = (who: string, displayName: string | null = null) => ({ accountId: ids[who], email: `${who}@example.com`, displayName });
    expect(b.topActors).toHaveLength(5);
    expect(b.topActors).toEqual(expect.arrayContaining([
      { type: 'account', id: ids.owner, count: 3, member: named('owner', 'Olga Owner') },
      { type: 'account', id: ids.member, count: 3, member: named('member') },
      { type: 'apiKey', id: KEY, count: 3, member: null },
      { type: 'account', id: ids.admin, count: 2, member: named('admin') },
      { type: 'system', id: 'system', count: 1, member: null },
    ]));
    expect(b.topActors.map((a: { count: number }) => a.count)).toEqual([3, 3, 3, 2, 1]);
    // Members: owner, admin, member acted; quiet beat; idle did nothing. Globex's time of the admin is not acme's.
    expect(b.members).toEqual({
      total: 5, active: 4, activeSecondsTotal: 60,
      activeTime: [{ ...named('quiet'), activeSeconds: 40 }, { ...named('owner', 'Olga Owner'), activeSeconds: 20 }],
    });
  });

  it('leaves payment.* out of every figure for an Admin', async () => {
    const res = await stats('admin');
    expect(res.status).toBe(200);
    expect(res.body.paymentEventsIncluded).toBe(false);
    expect(res.body.totals).toEqual({ events: 11, eventTypes: 5, actors: 5 });
    expect(res.body.daily.at(-1)).toEqual({ date: '2026-11-20', events: 7 });
    expect(res.body.topEventTypes.map((t: { eventType: string }) => t.eventType)).not.toContain('payment.charge');
    expect(res.body.topActors.find((a: { id: string }) => a.id === ids.member).count).toBe(2);
  });

  it.each([
    ['Free', '7', 1, 8, true],
    ['Pro', '30', 7, 12, true],
    ['Pro', '3', 3, 10, false],
    ['Business', '30', 30, 13, false],
    ['Enterprise', '90', 90, 13, false],
  ])('plan %s, days=%s → %i days, %i events (clamped %s)', async (plan, days, effective, events, clamped) => {
    await setPlan(plan);
    const res = await stats('owner', { days });
    expect(res.status).toBe(200);
    expect(res.body.window).toMatchObject({ days: effective, requestedDays: Number(days), clamped });
    expect(res.body.daily).toHaveLength(effective);
    expect(res.body.totals.events).toBe(events);
    expect(res.body.daily.reduce((n: number, d: { events: number }) => n + d.events, 0)).toBe(events);
  });

  it('answers the header figures: today, the last 24 hours, members active today, the chain head', async () => {
    await setPlan('Pro');
    const head = (await aerie.sql('select seq, chain_hash, updated_at from core.audit_heads where org_id = ?', [orgIds.acme]))[0];
    const owner = await stats('owner', {}, 'stats/quick');
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body).toEqual({
      at: '2026-11-20T12:00:50.000Z', today: '2026-11-20', paymentEventsIncluded: true,
      eventsToday: 8, eventsLast24h: 9, membersTotal: 5, membersActiveToday: 4,
      chainHead: { seq: 13, chainHash: head.chain_hash, sealedAt: new Date(head.updated_at).toISOString() },
      unsealedEvents: 0, unsealedCapped: false,
    });
    const admin = await stats('admin', {}, 'stats/quick');
    expect(admin.body).toMatchObject({ paymentEventsIncluded: false, eventsToday: 7, eventsLast24h: 8 });
  });

  it('counts a member active today by a heartbeat alone, and not by another organization', async () => {
    const before = (await stats('owner', {}, 'stats/quick')).body.membersActiveToday;
    await beat('idle', 'globex'); // not a globex member: 404, nothing stored
    expect((await stats('owner', {}, 'stats/quick')).body.membersActiveToday).toBe(before);
    expect((await beat('idle')).status).toBe(200);
    expect((await stats('owner', {}, 'stats/quick')).body.membersActiveToday).toBe(before + 1);
  });

  it.each([
    ['member', 'stats', 403, 'PERMISSION_DENIED'],
    ['member', 'stats/quick', 403, 'PERMISSION_DENIED'],
    ['outsider', 'stats', 404, 'NOT_FOUND'],
    ['outsider', 'stats/quick', 404, 'NOT_FOUND'],
    ['globex', 'stats', 404, 'NOT_FOUND'], // another organization's Owner
    ['globex', 'stats/quick', 404, 'NOT_FOUND'],
  ])('%s on /%s → %i %s', async (who, path, status, code) => {
    const res = await stats(who, {}, path);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    if (status === 403) expect(res.body).toMatchObject({ errorCode: 'PERMISSION_DENIED', required: 'org.audit_event_log.list' });
  });

  it("shows globex's Owner globex's figures only", async () => {
    const res = await aerie.request('GET', '/api/v1/admin/audit/stats?orgSlug=globex', { token: tokens.globex });
    expect(res.status).toBe(200);
    expect(res.body.topEventTypes).toEqual(expect.arrayContaining([{ eventType: 'org.role.created', count: 5 }]));
    expect(res.body.members.activeTime).toEqual([{ accountId: ids.admin, email: 'admin@example.com', displayName: null, activeSeconds: 50 }]);
    expect(res.body.topActors.map((a: { id: string }) => a.id)).not.toContain(ids.member);
  });

  it('refuses no session (401) and bad parameters (400 VALIDATION_FAILED)', async () => {
    expect((await aerie.request('GET', '/api/v1/admin/audit/stats?orgSlug=acme')).status).toBe(401);
    expect((await aerie.request('GET', '/api/v1/admin/audit/stats/quick?orgSlug=acme')).status).toBe(401);
    for (const params of <Array<Record<string, string>>>[{ days: '0' }, { days: '91' }, { days: 'week' }, { orgSlug: '' }, { from: '2026-11-01' }]) {
      const res = await stats('owner', params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
    }
  });
});
