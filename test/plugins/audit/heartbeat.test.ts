import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';

/**
 * `POST /api/v1/admin/audit/heartbeat` (docs/api/audit.md "Heartbeat"): a beat credits the time since
 * the member's previous counted beat in that organization, capped at 60 s; a repeat within 5 s
 * changes nothing; no client can make the credited time exceed the wall-clock time; one member's
 * time in one organization is never another's; no audit event is written.
 */
describe('audit heartbeat: capped active time per member, organization and UTC day', () => {
  let aerie: TestAerie;
  // A fixed start well inside a UTC day, so only the midnight test crosses one.
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'));
  const tokens: Record<string, string> = {};
  const orgIds: Record<string, string> = {};
  const accountIds: Record<string, string> = {};

  const beat = (who: string, orgSlug = 'acme') => aerie.request('POST', '/api/v1/admin/audit/heartbeat', { token: tokens[who], body: { orgSlug } });
  const stored = async (who: string, org = 'acme') =>
    (await aerie.sql('select day, active_ms from audit.member_activity where org_id = ? and account_id = ? order by day', [orgIds[org], accountIds[who]]))
      .map((r) => ({ day: r.day, ms: Number(r.active_ms) }));
  const auditRows = async () => Number((await aerie.sql(
    `select (select count(*) from core.audit_events where org_id = any(?::uuid[])) + (select count(*) from core.audit_outbox where org_id = any(?::uuid[])) as n`,
    [Object.values(orgIds), Object.values(orgIds)],
  ))[0].n);

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock });
    for (const who of ['owner', 'member', 'outsider', 'globex']) tokens[who] = await aerie.signIn(`${who}@example.com`);
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.globex, body: { name: 'Globex', slug: 'globex' } })).status).toBe(201);
    // member belongs to both organizations.
    for (const slug of ['acme', 'globex']) {
      await aerie.sql(
        `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
         select gen_random_uuid(), o.id, a.id, 'Member', 'active', now(), now() from orgs.organizations o, accounts.accounts a where o.slug = ? and a.email = 'member@example.com'`,
        [slug],
      );
    }
    for (const o of await aerie.sql('select id, slug from orgs.organizations')) orgIds[o.slug] = o.id;
    for (const a of await aerie.sql('select id, email from accounts.accounts')) accountIds[a.email.split('@')[0]] = a.id;
    await aerie.kernel.auditSealer.drain();
  });
  afterAll(() => aerie?.close());

  it('credits the interval since the previous beat: 0 first, 30 s after 30 s, nothing within 5 s, at most 60 s after a pause', async () => {
    const before = await auditRows();
    const steps: Array<[advanceSeconds: number, credited: number, today: number]> = [
      [0, 0, 0], // first beat: nothing before it to measure from
      [30, 30, 30],
      [1, 0, 30], // a rapid repeat adds nothing now…
      [4, 5, 35], // …and its second is credited by the next counted beat (5 s after the last one)
      [600, 60, 95], // a long pause: capped at 60 s
      [59, 59, 154],
    ];
    for (const [advance, credited, today] of steps) {
      clock.advance(advance);
      const res = await beat('member');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ day: '2026-11-20', creditedSeconds: credited, activeSecondsToday: today, nextBeatSeconds: 30 });
    }
    expect(await stored('member')).toEqual([{ day: '2026-11-20', ms: 154_000 }]);
    // The owner's time is the owner's: separate rows, nothing added to the member's.
    expect((await beat('owner')).body.creditedSeconds).toBe(0);
    expect(await stored('member')).toEqual([{ day: '2026-11-20', ms: 154_000 }]);
    // No audit event per heartbeat.
    expect(await auditRows()).toBe(before);
  });

  it('never credits more than the wall-clock time: a burst of beats counts one interval', async () => {
    clock.advance(30);
    const answers = await Promise.all(Array.from({ length: 8 }, () => beat('member')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.map((a) => a.body.creditedSeconds).reduce((x, y) => x + y, 0)).toBe(30);
    expect(await stored('member')).toEqual([{ day: '2026-11-20', ms: 184_000 }]);
    // 100 beats one second apart cover 100 s and credit at most that.
    const start = (await stored('member'))[0].ms;
    for (let i = 0; i < 100; i++) {
      clock.advance(1);
      await beat('member');
    }
    const added = (await stored('member'))[0].ms - start;
    expect(added).toBeLessThanOrEqual(100_000);
    expect(added).toBeGreaterThanOrEqual(95_000);
  });

  it("keeps each organization's time apart: the member's beats in globex never count in acme", async () => {
    const acmeBefore = await stored('member');
    expect((await beat('member', 'globex')).body.creditedSeconds).toBe(0);
    clock.advance(40);
    expect((await beat('member', 'globex')).body).toMatchObject({ creditedSeconds: 40, activeSecondsToday: 40 });
    expect(await stored('member', 'globex')).toEqual([{ day: '2026-11-20', ms: 40_000 }]);
    expect(await stored('member')).toEqual(acmeBefore);
  });

  it('counts an interval on the UTC day of the beat that closes it', async () => {
    const now = clock.now().getTime();
    const midnight = Date.parse('2026-11-21T00:00:00.000Z');
    clock.advance((midnight - now) / 1000 - 10); // 23:59:50
    await beat('owner');
    clock.advance(20); // 00:00:10
    const res = await beat('owner');
    expect(res.body).toEqual({ day: '2026-11-21', creditedSeconds: 20, activeSecondsToday: 20, nextBeatSeconds: 30 });
    expect((await stored('owner')).map((r) => r.day)).toEqual(['2026-11-20', '2026-11-21']);
  });

  it.each([
    ['outsider', 'acme', 404, 'NOT_FOUND'],
    ['globex', 'acme', 404, 'NOT_FOUND'], // another organization's owner
    ['owner', 'no-such-org', 404, 'NOT_FOUND'],
  ])('%s beating in %s → %i %s, nothing stored', async (who, slug, status, code) => {
    const rows = await aerie.sql('select count(*)::int as n from audit.member_activity');
    const res = await beat(who, slug);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    expect(await aerie.sql('select count(*)::int as n from audit.member_activity')).toEqual(rows);
  });

  it('refuses a missing session (401) and a malformed body (400 VALIDATION_FAILED)', async () => {
    expect((await aerie.request('POST', '/api/v1/admin/audit/heartbeat', { body: { orgSlug: 'acme' } })).status).toBe(401);
    for (const body of [{}, { orgSlug: '' }, { orgSlug: 'acme', seconds: 3600 }]) {
      const res = await aerie.request('POST', '/api/v1/admin/audit/heartbeat', { token: tokens.member, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
    }
  });
});
