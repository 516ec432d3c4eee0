import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';

const DAY = 86_400_000;

describe('audit query: scope table, plan gate, payment.* to the owner, 90-day span, retention by plan, retention schedule', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date());
  const now = clock.now().getTime();
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let root: string;

  const setPlan = async (planKey: string) =>
    expect((await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: root, body: { planKey } })).status).toBe(200);
  const query = (who: string, params: Record<string, string>) =>
    aerie.request('GET', `/api/v1/admin/audit/query?${new URLSearchParams({ orgSlug: 'acme', ...params })}`, { token: tokens[who] });
  const types = (body: { items: Array<{ eventType: string }> }) => body.items.map((i) => i.eventType).sort();

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock, env: { AERIE_PLATFORM_ADMINS: 'root@example.com' } });
    root = await aerie.signIn('root@example.com');
    for (const who of ['owner', 'admin', 'member', 'outsider']) tokens[who] = await aerie.signIn(`${who}@example.com`);
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    for (const [who, role] of [['admin', 'Admin'], ['member', 'Member']]) {
      await aerie.sql(
        `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
         select gen_random_uuid(), o.id, a.id, ?, 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = 'acme' and a.email = ?`,
        [role, `${who}@example.com`],
      );
    }
    for (const a of await aerie.sql(`select id, email from accounts.accounts`)) ids[a.email.split('@')[0]] = a.id;
    const orgId = (await aerie.sql(`select id from orgs.organizations where slug = 'acme'`))[0].id;
    await aerie.kernel.auditSealer.drain();
    await aerie.sql(`delete from core.audit_events where org_id = ?`, [orgId]); // org creation events: not part of this table
    await aerie.sql(`delete from core.audit_heads where org_id = ?`, [orgId]);
    const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
    const acct = (who: string) => ({ type: 'account' as const, id: ids[who] });
    const sys = { type: 'system' as const, id: 'system' };
    const at = (ms: number) => new Date(now - ms);
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [
      { orgId, eventType: 'owner.recent', actor: acct('owner'), occurredAt: at(3_600_000) },
      { orgId, eventType: 'owner.d3', actor: acct('owner'), occurredAt: at(3 * DAY) },
      { orgId, eventType: 'owner.d20', actor: acct('owner'), occurredAt: at(20 * DAY) },
      { orgId, eventType: 'owner.d80', actor: acct('owner'), occurredAt: at(80 * DAY) },
      { orgId, eventType: 'owner.d150', actor: acct('owner'), occurredAt: at(150 * DAY) },
      { orgId, eventType: 'member.recent', actor: acct('member'), occurredAt: at(3_600_000) },
      { orgId, eventType: 'payment.refund', actor: acct('member'), occurredAt: at(3_600_000) },
      { orgId, eventType: 'payment.charge', actor: sys, occurredAt: at(3_600_000) },
      { orgId, eventType: 'agent.hired', actor: sys, occurredAt: at(3_600_000) },
      { orgId, eventType: 'reporting.run', actor: acct('admin'), occurredAt: at(3_600_000) },
    ]));
    await aerie.kernel.auditSealer.drain();
  });
  afterAll(() => aerie?.close());

  const TODAY = ['agent.hired', 'member.recent', 'owner.recent', 'payment.charge', 'payment.refund', 'reporting.run'];
  const cases: Array<[plan: string, who: string, scope: string, status: number, expected: string[] | string]> = [
    ['Free', 'owner', 'mine', 200, ['owner.recent']],
    ['Free', 'member', 'mine', 200, ['member.recent']], // its own payment.refund stays owner-only
    ['Free', 'owner', 'all', 403, 'UPGRADE_REQUIRED'],
    ['Free', 'admin', 'all', 403, 'UPGRADE_REQUIRED'],
    ['Free', 'member', 'all', 403, 'PERMISSION_DENIED'],
    ['Pro', 'member', 'all', 403, 'PERMISSION_DENIED'],
    ['Pro', 'admin', 'mine', 200, ['reporting.run']],
    ['Pro', 'admin', 'all', 200, TODAY.filter((t) => !t.startsWith('payment.')).concat('owner.d3').sort()],
    ['Pro', 'owner', 'all', 200, [...TODAY, 'owner.d3'].sort()],
    ['Pro', 'outsider', 'mine', 404, 'NOT_FOUND'],
  ];
  it.each(cases)('plan %s, %s, scope=%s → %i', async (plan, who, scope, status, expected) => {
    await setPlan(plan);
    const res = await query(who, { scope });
    expect(res.status).toBe(status);
    if (typeof expected === 'string') {
      expect(res.body.error).toBe(expected);
      if (expected === 'UPGRADE_REQUIRED') expect(res.body.feature).toBe('feature.audit.view_all');
      if (expected === 'PERMISSION_DENIED') expect(res.body).toMatchObject({ errorCode: 'PERMISSION_DENIED', required: 'org.audit_event_log.list' });
    } else {
      expect(types(res.body)).toEqual(expected);
    }
  });

  const retention: Array<[plan: string, visible: string[], windowDays: number | null]> = [
    ['Free', ['owner.recent'], 1],
    ['Pro', ['owner.d3', 'owner.recent'], 7],
    ['ProPlus', ['owner.d20', 'owner.d3', 'owner.recent'], 30],
    ['Business', ['owner.d20', 'owner.d3', 'owner.d80', 'owner.recent'], 90],
    ['Enterprise', ['owner.d20', 'owner.d3', 'owner.d80', 'owner.recent'], null],
  ];
  it.each(retention)('clips to the %s retention window while every event stays sealed', async (plan, visible, days) => {
    await setPlan(plan);
    const res = await query('owner', {});
    expect(res.status).toBe(200);
    expect(types(res.body)).toEqual(visible);
    expect(res.body.window.retentionDays).toBe(days);
    expect((await aerie.sql(`select count(*)::int as n from core.audit_events e join orgs.organizations o on o.id = e.org_id where o.slug = 'acme'`))[0].n).toBe(10);
    const older = await query('owner', { from: new Date(now - 170 * DAY).toISOString(), to: new Date(now - 100 * DAY).toISOString() });
    expect(types(older.body)).toEqual(plan === 'Enterprise' ? ['owner.d150'] : []);
  });

  it('refuses a span over 90 days with 400 and accepts exactly 90', async () => {
    const to = new Date(now).toISOString();
    const over = await query('owner', { from: new Date(now - 91 * DAY).toISOString(), to });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('QUERY_SPAN_TOO_LONG');
    expect((await query('owner', { from: new Date(now - 90 * DAY).toISOString(), to })).status).toBe(200);
  });

  it('filters by eventTypes= and pages with a cursor', async () => {
    await setPlan('Enterprise');
    const filtered = await query('owner', { scope: 'all', eventTypes: 'agent.hired,payment.charge' });
    expect(types(filtered.body)).toEqual(['agent.hired', 'payment.charge']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ eventType: string }>; nextCursor: string | null } } = await query('owner', { scope: 'all', limit: '3', ...(cursor ? { cursor } : {}) });
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items.map((i) => i.eventType));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...TODAY, 'owner.d20', 'owner.d3', 'owner.d80'].sort());
    expect((await query('owner', { cursor: 'garbage' })).status).toBe(400);
  });

  it('applies the same visibility per event on /query/detail', async () => {
    await setPlan('Pro');
    const [refund] = await aerie.sql(`select id from core.audit_events where event_type = 'payment.refund'`);
    const [mine] = await aerie.sql(`select id from core.audit_events where event_type = 'member.recent'`);
    const [agent] = await aerie.sql(`select id from core.audit_events where event_type = 'agent.hired'`);
    const detail = (who: string, id: string, scope = 'mine') =>
      aerie.request('GET', `/api/v1/admin/audit/query/detail?${new URLSearchParams({ orgSlug: 'acme', id, scope })}`, { token: tokens[who] });
    expect((await detail('member', refund.id)).status).toBe(404);
    expect((await detail('admin', refund.id, 'all')).status).toBe(404);
    expect((await detail('owner', refund.id, 'all')).status).toBe(200);
    const own = await detail('member', mine.id);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: mine.id, eventType: 'member.recent', chainHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await detail('member', agent.id)).status).toBe(404);
    expect((await detail('admin', agent.id, 'all')).status).toBe(200);
  });

  it('answers the retention window and purge schedule', async () => {
    await setPlan('Pro');
    const res = await aerie.request('GET', '/api/v1/admin/audit/retention?orgSlug=acme', { token: tokens.member });
    expect(res.status).toBe(200);
    const exit = now - 150 * DAY + 7 * DAY;
    expect(res.body).toEqual({
      planKey: 'Pro', retentionDays: 7, unlimited: false, windowStartUtc: new Date(now - 7 * DAY).toISOString(), isContractOverride: false,
      graceDays: 14, noticeCount: 2, noticeCountPolicy: 'fixed', noticeIntervalDays: 7,
      firstNoticeAt: new Date(exit).toISOString(), finalNoticeAt: new Date(exit + 7 * DAY).toISOString(),
      purgeScheduledAt: new Date(exit + 14 * DAY).toISOString(), purgeUnlocked: true, purgeHorizon: null,
    });
    await setPlan('Enterprise');
    const unlimited = await aerie.request('GET', '/api/v1/admin/audit/retention?orgSlug=acme', { token: tokens.owner });
    expect(unlimited.body).toMatchObject({ unlimited: true, retentionDays: null, windowStartUtc: null, purgeScheduledAt: null, purgeUnlocked: false });
    expect((await aerie.request('GET', '/api/v1/admin/audit/retention?orgSlug=acme', { token: tokens.outsider })).status).toBe(404);
  });
});
