import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';

/**
 * `GET /api/v1/admin/audit/sessions` (docs/api/audit.md "Members' sessions"): the live console
 * sessions of the organization's active members — never another organization's member, an
 * outsider, a suspended member, a revoked or an expired session, never a token or its hash —
 * to the Owner and Admins only.
 */
describe("audit sessions: the organization's members' live sessions", () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2026-11-20T12:00:00.000Z'));
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let memberTokens: string[] = [];

  const list = (who: string, params: Record<string, string> = {}) =>
    aerie.request('GET', `/api/v1/admin/audit/sessions?${new URLSearchParams({ orgSlug: 'acme', ...params })}`, { token: tokens[who] });
  const join = (email: string, slug: string, role: string, status = 'active') =>
    aerie.sql(
      `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
       select gen_random_uuid(), o.id, a.id, ?, ?, now(), now() from orgs.organizations o, accounts.accounts a where o.slug = ? and a.email = ?`,
      [role, status, slug, email],
    );

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'audit'], clock });
    for (const who of ['owner', 'admin', 'outsider', 'globex', 'suspended']) {
      tokens[who] = await aerie.signIn(`${who}@example.com`, who === 'admin' ? 'Ada Admin' : undefined);
      clock.advance(60);
    }
    // The member signs in three times (three devices).
    memberTokens = [];
    for (let i = 0; i < 3; i++) {
      memberTokens.push(await aerie.signIn('member@example.com'));
      clock.advance(60);
    }
    tokens.member = memberTokens[2];
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    expect((await aerie.request('POST', '/api/org/create', { token: tokens.globex, body: { name: 'Globex', slug: 'globex' } })).status).toBe(201);
    await join('admin@example.com', 'acme', 'Admin');
    await join('member@example.com', 'acme', 'Member');
    await join('suspended@example.com', 'acme', 'Member', 'suspended');
    await join('admin@example.com', 'globex', 'Admin'); // an Admin of both: still only acme's members in acme's list
    for (const a of await aerie.sql('select id, email from accounts.accounts')) ids[a.email.split('@')[0]] = a.id;
    await aerie.sql(`update accounts.sessions set user_agent = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', ip = '203.0.113.7' where account_id = ?`, [ids.admin]);
  });
  afterAll(() => aerie?.close());

  it("lists live sessions of active members only, most recently seen first, the caller's own marked current", async () => {
    const res = await list('owner');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ page: 1, pageSize: 25, total: 5 });
    const accounts = res.body.items.map((s: { accountId: string }) => s.accountId);
    expect(accounts.sort()).toEqual([ids.owner, ids.admin, ids.member, ids.member, ids.member].sort());
    for (const who of ['outsider', 'globex', 'suspended']) expect(accounts).not.toContain(ids[who]);
    const seen = res.body.items.map((s: { lastSeenAt: string }) => s.lastSeenAt);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(res.body.items.filter((s: { current: boolean }) => s.current).map((s: { accountId: string }) => s.accountId)).toEqual([ids.owner]);
    const admin = res.body.items.find((s: { accountId: string }) => s.accountId === ids.admin);
    expect(admin).toMatchObject({ email: 'admin@example.com', displayName: 'Ada Admin', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', ip: '203.0.113.7', current: false });
    expect(Object.keys(admin).sort()).toEqual(['absoluteExpiresAt', 'accountId', 'createdAt', 'current', 'displayName', 'email', 'expiresAt', 'id', 'ip', 'lastSeenAt', 'userAgent']);
    // Nothing of a token or its hash anywhere in the answer.
    const hashes = (await aerie.sql('select token_hash, csrf_token_hash from accounts.sessions')).flatMap((r) => [r.token_hash, r.csrf_token_hash]).filter(Boolean);
    const text = JSON.stringify(res.body);
    for (const secret of [...hashes, ...Object.values(tokens), ...memberTokens]) expect(text).not.toContain(secret);
  });

  it('pages with page and pageSize; total stays the same', async () => {
    const all = (await list('admin', { pageSize: '100' })).body.items.map((s: { id: string }) => s.id);
    const first = await list('admin', { pageSize: '2' });
    const second = await list('admin', { pageSize: '2', page: '2' });
    const third = await list('admin', { pageSize: '2', page: '3' });
    const fourth = await list('admin', { pageSize: '2', page: '4' });
    expect([first, second, third, fourth].map((r) => r.body.total)).toEqual([5, 5, 5, 5]);
    expect([first, second, third, fourth].map((r) => r.body.items.length)).toEqual([2, 2, 1, 0]);
    expect([first, second, third].flatMap((r) => r.body.items.map((s: { id: string }) => s.id))).toEqual(all);
    // The Admin sees its own session marked.
    expect(first.body.items.concat(second.body.items, third.body.items).find((s: { current: boolean }) => s.current).accountId).toBe(ids.admin);
  });

  it('drops revoked and expired sessions', async () => {
    expect((await aerie.request('POST', '/api/auth/logout', { token: memberTokens[0] })).status).toBe(204);
    await aerie.sql(`update accounts.sessions set expires_at = ? where id = (
      select id from accounts.sessions where account_id = ? and revoked_at is null order by created_at limit 1)`, [new Date(clock.now().getTime() - 1000), ids.member]);
    const res = await list('owner');
    expect(res.body.total).toBe(3);
    expect(res.body.items.filter((s: { accountId: string }) => s.accountId === ids.member)).toHaveLength(1);
  });

  it.each([
    ['member', 403, 'PERMISSION_DENIED'],
    ['suspended', 404, 'NOT_FOUND'],
    ['outsider', 404, 'NOT_FOUND'],
    ['globex', 404, 'NOT_FOUND'], // another organization's Owner
  ])('%s → %i %s', async (who, status, code) => {
    const res = await list(who);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    if (code === 'PERMISSION_DENIED') expect(res.body).toMatchObject({ errorCode: 'PERMISSION_DENIED', required: 'org.audit_event_log.list' });
  });

  it("lists globex's members for globex's Owner: the shared Admin, never acme's members", async () => {
    const res = await aerie.request('GET', '/api/v1/admin/audit/sessions?orgSlug=globex', { token: tokens.globex });
    expect(res.status).toBe(200);
    expect([...new Set(res.body.items.map((s: { accountId: string }) => s.accountId))].sort()).toEqual([ids.globex, ids.admin].sort());
  });

  it('refuses no session (401) and bad parameters (400 VALIDATION_FAILED)', async () => {
    expect((await aerie.request('GET', '/api/v1/admin/audit/sessions?orgSlug=acme')).status).toBe(401);
    for (const params of <Array<Record<string, string>>>[{ pageSize: '101' }, { pageSize: '0' }, { page: '0' }, { page: 'x' }, { orgSlug: '' }, { extra: '1' }]) {
      const res = await list('owner', params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_FAILED');
    }
  });
});
