import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';

describe('accounts: GET /api/v1/users/me', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2030-05-01T09:00:00.000Z'));

  beforeAll(async () => {
    aerie = await TestAerie.start({
      plugins: ['accounts', 'orgs'],
      clock,
      env: { AERIE_PLATFORM_ADMINS: ' Root@Example.COM , ops@example.com' },
    });
  });
  afterAll(() => aerie?.close());

  const me = (token: string, query = '') => aerie.request('GET', `/api/v1/users/me${query}`, { token });

  it('answers {account, organizations} with private 5-minute caching headers', async () => {
    const token = await aerie.signIn('me-shape@example.com', 'Shape Person');
    const res = await me(token);
    expect(res.status).toBe(200);
    const [row] = await aerie.sql(`select id from accounts.accounts where email = 'me-shape@example.com'`);
    expect(res.body.account).toEqual({
      id: row.id,
      email: 'me-shape@example.com',
      displayName: 'Shape Person',
      emailVerified: true,
      platformAdmin: false,
      createdAt: clock.now().toISOString(),
    });
    expect(res.body.organizations).toEqual([]);
    // Other plugins may contribute further members (credential ids, seal design); these two are fixed.
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['account', 'organizations']));
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('serves the second request from the cache (x-aerie-cache: hit) and sends the same body', async () => {
    const token = await aerie.signIn('me-cache@example.com');
    const first = await me(token);
    const second = await me(token);
    expect(first.headers.get('x-aerie-cache')).toBe('miss');
    expect(second.headers.get('x-aerie-cache')).toBe('hit');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('cache-control')).toBe('private, max-age=300');
  });

  it('keeps one cache entry per account', async () => {
    const a = await aerie.signIn('me-per-a@example.com');
    const b = await aerie.signIn('me-per-b@example.com');
    await me(a);
    const other = await me(b);
    expect(other.headers.get('x-aerie-cache')).toBe('miss');
    expect(other.body.account.email).toBe('me-per-b@example.com');
    expect((await me(a)).body.account.email).toBe('me-per-a@example.com');
  });

  it('bypasses the cache with _t and refreshes it', async () => {
    const token = await aerie.signIn('me-bypass@example.com', 'Before');
    await me(token);
    // A change the service does not hear about (written behind its back) stays invisible while cached…
    await aerie.sql(`update accounts.accounts set display_name = 'After' where email = 'me-bypass@example.com'`);
    const cached = await me(token);
    expect(cached.headers.get('x-aerie-cache')).toBe('hit');
    expect(cached.body.account.displayName).toBe('Before');
    // …until `_t` (any value, e.g. a timestamp) asks for a fresh answer.
    const fresh = await me(token, `?_t=${clock.now().getTime()}`);
    expect(fresh.headers.get('x-aerie-cache')).toBe('miss');
    expect(fresh.body.account.displayName).toBe('After');
    const next = await me(token);
    expect(next.headers.get('x-aerie-cache')).toBe('hit');
    expect(next.body.account.displayName).toBe('After');
  });

  it('drops the cached answer when the profile changes', async () => {
    const token = await aerie.signIn('me-profile@example.com', 'Old Name');
    await me(token);
    expect((await me(token)).headers.get('x-aerie-cache')).toBe('hit');
    const put = await aerie.request('PUT', '/api/v1/users/me/profile', { token, body: { displayName: 'New Name' } });
    expect(put.status).toBe(200);
    const after = await me(token);
    expect(after.headers.get('x-aerie-cache')).toBe('miss');
    expect(after.body.account.displayName).toBe('New Name');
  });

  it('drops the cached answer when the account creates an organization, which appears at once', async () => {
    const token = await aerie.signIn('me-org@example.com');
    const other = await aerie.signIn('me-org-other@example.com');
    await me(token);
    await me(other);
    expect((await me(token)).body.organizations).toEqual([]);
    const created = await aerie.request('POST', '/api/org/create', { token, body: { name: 'Cache Co', slug: 'cache-co' } });
    expect(created.status).toBe(201);
    const after = await me(token);
    expect(after.headers.get('x-aerie-cache')).toBe('miss');
    expect(after.body.organizations).toEqual([
      {
        id: created.body.id,
        name: 'Cache Co',
        slug: 'cache-co',
        ready: false,
        type: 'Standard',
        planKey: 'Free',
        createdAt: clock.now().toISOString(),
        role: 'Owner',
      },
    ]);
    // Another account's cached answer is untouched.
    const otherMe = await me(other);
    expect(otherMe.headers.get('x-aerie-cache')).toBe('hit');
    expect(otherMe.body.organizations).toEqual([]);
  });

  it('expires a cached answer after 300 seconds', async () => {
    const token = await aerie.signIn('me-ttl@example.com');
    await me(token);
    clock.advance(299);
    expect((await me(token)).headers.get('x-aerie-cache')).toBe('hit');
    clock.advance(1);
    expect((await me(token)).headers.get('x-aerie-cache')).toBe('miss');
  });

  it('never serves a cached answer to a logged-out token', async () => {
    const token = await aerie.signIn('me-out@example.com');
    await me(token);
    expect((await aerie.request('POST', '/api/auth/logout', { token })).status).toBe(204);
    const res = await me(token);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
  });

  it.each([
    ['an unknown query parameter', '?foo=1', 'foo'],
    ['a _t longer than 64 characters', `?_t=${'9'.repeat(65)}`, '_t'],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, query, field) => {
    const token = await aerie.signIn(`me-query-${field}@example.com`);
    const res = await me(token, query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
  });

  describe('platform admins (AERIE_PLATFORM_ADMINS, case-insensitive)', () => {
    it.each([
      ['root@example.com', true],
      ['ROOT@EXAMPLE.COM', true],
      ['Ops@Example.com', true],
      ['me-plain@example.com', false],
    ])('%s has platformAdmin %s', async (email, admin) => {
      const token = await aerie.signIn(email);
      const res = await me(token, '?_t=1');
      expect(res.body.account.platformAdmin).toBe(admin);
      expect(res.body.account.email).toBe(email.toLowerCase());
    });

    it('lets a listed admin, signed in with any case, use admin routes', async () => {
      const owner = await aerie.signIn('me-admin-owner@example.com');
      expect((await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Admin Co', slug: 'admin-co' } })).status).toBe(201);
      const root = await aerie.signIn('Root@example.com');
      const res = await aerie.request('PUT', '/api/v1/admin/orgs/admin-co/plan', { token: root, body: { planKey: 'Pro' } });
      expect(res.status).toBe(200);
      const plain = await aerie.signIn('me-plain@example.com');
      const refused = await aerie.request('PUT', '/api/v1/admin/orgs/admin-co/plan', { token: plain, body: { planKey: 'Pro' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('PERMISSION_DENIED');
    });
  });
});
