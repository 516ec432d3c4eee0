import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../core/clock.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { DAY, iso, requestCode, sessionRows, sha256Hex, verify } from './accounts-helpers.ts';

describe('accounts: session tokens', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2030-03-01T09:00:00.000Z'));

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], clock });
  });
  afterAll(() => aerie?.close());

  const me = (token?: string, headers?: Record<string, string>) => aerie.request('GET', '/api/v1/users/me?_t=1', { token, headers });

  it('opens a session whose token works on GET /api/v1/users/me', async () => {
    const token = await aerie.signIn('ses-works@example.com');
    const res = await me(token);
    expect(res.status).toBe(200);
    expect(res.body.account.email).toBe('ses-works@example.com');
  });

  it('stores only the SHA-256 of the token, with idle and absolute expiry, user agent and ip', async () => {
    const code = await requestCode(aerie, 'ses-hash@example.com');
    const res = await aerie.request('POST', '/api/v1/users/verification/email', {
      body: { email: 'ses-hash@example.com', code },
      headers: { 'user-agent': 'aerie-test/1.0' },
    });
    const token: string = res.body.sessionToken;
    const rows = await sessionRows(aerie, 'ses-hash@example.com');
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(row).toMatchObject({ account_id: res.body.account.id, revoked_at: null, user_agent: 'aerie-test/1.0' });
    expect(typeof row.ip).toBe('string');
    const now = clock.now().getTime();
    expect(iso(row.expires_at)).toBe(new Date(now + 7 * DAY * 1000).toISOString());
    expect(iso(row.absolute_expires_at)).toBe(new Date(now + 30 * DAY * 1000).toISOString());
    expect(res.body.expiresAt).toBe(iso(row.expires_at));
  });

  it('gives every sign-in its own token', async () => {
    const a = await aerie.signIn('ses-two@example.com');
    const b = await aerie.signIn('ses-two@example.com');
    expect(a).not.toBe(b);
    expect((await me(a)).status).toBe(200);
    expect((await me(b)).status).toBe(200);
  });

  it('logs out with 204, marks the session revoked, and the token answers 401 afterwards', async () => {
    const token = await aerie.signIn('ses-logout@example.com');
    const other = await aerie.signIn('ses-logout@example.com');
    const out = await aerie.request('POST', '/api/auth/logout', { token });
    expect(out.status).toBe(204);
    expect(out.body).toBeUndefined();
    const after = await me(token);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('UNAUTHORIZED');
    expect((await aerie.request('POST', '/api/auth/logout', { token })).status).toBe(401);
    const rows = await aerie.sql('select revoked_at from accounts.sessions where token_hash = ?', [sha256Hex(token)]);
    expect(iso(rows[0].revoked_at)).toBe(clock.now().toISOString());
    // Only that session ends.
    expect((await me(other)).status).toBe(200);
  });

  it.each<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['garbage', { authorization: 'Bearer garbage' }],
    ['a well-formed unknown token', { authorization: `Bearer ${'A'.repeat(43)}` }],
    ['a token one character too long', { authorization: `Bearer ${'A'.repeat(44)}` }],
    ['an API-key-looking token', { authorization: 'Bearer ah_live_0123456789abcdef' }],
    ['Basic credentials', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers %s with 401 UNAUTHORIZED in the error envelope', async (_label, headers) => {
    const res = await me(undefined, headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'UNAUTHORIZED', message: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a real token sent without the Bearer scheme, and accepts the scheme in any case', async () => {
    const token = await aerie.signIn('ses-scheme@example.com');
    expect((await me(undefined, { authorization: token })).status).toBe(401);
    expect((await me(undefined, { authorization: `Token ${token}` })).status).toBe(401);
    expect((await me(undefined, { authorization: `bearer ${token}` })).status).toBe(200);
  });

  describe('expiry (7 days idle, sliding; 30 days absolute)', () => {
    it.each([
      ['just under 7 days', 7 * DAY - 1, 200],
      ['exactly 7 days', 7 * DAY, 401],
      ['8 days', 8 * DAY, 401],
    ])('a token left idle for %s (%i s) answers %i', async (_label, idle, status) => {
      const token = await aerie.signIn(`ses-idle-${idle}@example.com`);
      clock.advance(idle);
      const res = await me(token);
      expect(res.status).toBe(status);
      if (status === 401) expect(res.body.error).toBe('UNAUTHORIZED');
    });

    it('slides the idle expiry on use, past 7 days, until the 30-day absolute limit', async () => {
      const email = 'ses-slide@example.com';
      const token = await aerie.signIn(email);
      const start = clock.now().getTime();
      const absolute = new Date(start + 30 * DAY * 1000).toISOString();
      // Used every 3 days: alive on day 27, well past the first 7-day idle window. Each use moves
      // the idle expiry to now + 7 days, capped at the absolute expiry (from day 24 on).
      for (let day = 3; day <= 27; day += 3) {
        clock.advance(3 * DAY);
        expect((await me(token)).status, `day ${day}`).toBe(200);
        const [row] = await sessionRows(aerie, email);
        expect(iso(row.last_seen_at)).toBe(clock.now().toISOString());
        const slid = Math.min(clock.now().getTime() + 7 * DAY * 1000, Date.parse(absolute));
        expect(iso(row.expires_at)).toBe(new Date(slid).toISOString());
        expect(iso(row.absolute_expires_at)).toBe(absolute);
      }
      // Day 29.
      clock.advance(2 * DAY);
      expect((await me(token)).status).toBe(200);
      // Day 30, one second before the end, still alive; at the end, gone despite recent use.
      clock.advance(DAY - 1);
      expect((await me(token)).status).toBe(200);
      clock.advance(1);
      const dead = await me(token);
      expect(dead.status).toBe(401);
      expect(dead.body.error).toBe('UNAUTHORIZED');
    });

    it('does not slide a token that has already expired', async () => {
      const token = await aerie.signIn('ses-late@example.com');
      clock.advance(7 * DAY);
      expect((await me(token)).status).toBe(401);
      clock.advance(60);
      expect((await me(token)).status).toBe(401);
    });
  });
});

describe('accounts: session lifetimes from configuration', () => {
  let aerie: TestAerie;
  const clock = new ManualClock(new Date('2030-04-01T09:00:00.000Z'));

  beforeAll(async () => {
    aerie = await TestAerie.start({
      plugins: ['accounts'],
      clock,
      env: { AERIE_SESSION_IDLE_TTL: '3600', AERIE_SESSION_ABSOLUTE_TTL: '7200' },
    });
  });
  afterAll(() => aerie?.close());

  it('uses AERIE_SESSION_IDLE_TTL and AERIE_SESSION_ABSOLUTE_TTL', async () => {
    const code = await requestCode(aerie, 'ses-config@example.com');
    const res = await verify(aerie, 'ses-config@example.com', code);
    expect(res.body.expiresAt).toBe(new Date(clock.now().getTime() + 3600_000).toISOString());
    const token: string = res.body.sessionToken;
    const get = () => aerie.request('GET', '/api/v1/users/me', { token });
    clock.advance(3000);
    expect((await get()).status).toBe(200);
    clock.advance(3000);
    expect((await get()).status).toBe(200);
    clock.advance(1199);
    expect((await get()).status).toBe(200);
    clock.advance(1);
    expect((await get()).status).toBe(401);
  });
});
