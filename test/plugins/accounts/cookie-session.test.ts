import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';
import { loadConfiguration } from '../../../core/config/load-config.ts';
import { clearSessionCookie, setSessionCookie } from '../../../plugins/accounts/cookie-session.auth.ts';

const ORIGIN = 'https://aerie.test';

describe('accounts: cookie sessions for Aerie pages, with X-CSRF-Token and Origin checks', () => {
  let aerie: TestAerie;
  let cookie: string;
  let csrf: string;

  const cookieRequest = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<TestResponse> =>
    aerie.request(method, path, { headers: { cookie, ...headers }, ...(body !== undefined ? { body } : {}) });
  const signInWithCookie = async (email: string, headers: Record<string, string>) => {
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email } });
    return aerie.request('POST', '/api/v1/users/verification/email', { body: { email, code: aerie.code(email), session: 'cookie' }, headers });
  };

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'], env: { AERIE_BASE_URL: ORIGIN } });
  });
  afterAll(() => aerie?.close());

  it('refuses a cookie sign-in from a foreign or missing Origin (login CSRF) and keeps the code usable', async () => {
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'ann@example.com' } });
    const code = aerie.code('ann@example.com');
    for (const headers of [{}, { origin: 'https://evil.example' }] as Array<Record<string, string>>) {
      const res = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'ann@example.com', code, session: 'cookie' }, headers });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'CSRF_FAILED', reason: 'origin' });
    }
    const ok = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'ann@example.com', code, session: 'cookie' }, headers: { origin: ORIGIN } });
    expect(ok.status).toBe(200);
  });

  it('sets an HttpOnly, SameSite=Lax, Secure __Host- cookie over https and answers a CSRF token instead of the session token', async () => {
    const res = await signInWithCookie('bob@example.com', { origin: ORIGIN });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^__Host-aerie_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/);
    expect(res.body.sessionToken).toBeUndefined();
    expect(res.body).toMatchObject({ csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), account: { email: 'bob@example.com' } });
    cookie = setCookie.split(';')[0];
    csrf = res.body.csrfToken;
    const [row] = await aerie.sql("select s.csrf_token_hash from accounts.sessions s join accounts.accounts a on a.id = s.account_id where a.email = 'bob@example.com'");
    expect(row.csrf_token_hash).toBe(createHash('sha256').update(csrf).digest('hex'));
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('reads with the cookie alone (GET needs no CSRF token)', async () => {
    const res = await cookieRequest('GET', '/api/v1/users/me?_t=1');
    expect(res.status).toBe(200);
    expect(res.body.account.email).toBe('bob@example.com');
  });

  type Write = [name: string, headers: () => Record<string, string>, reason: 'token' | 'origin'];
  const refused: Write[] = [
    ['without X-CSRF-Token', () => ({ origin: ORIGIN }), 'token'],
    ['with a wrong X-CSRF-Token', () => ({ origin: ORIGIN, 'x-csrf-token': csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }), 'token'],
    ['with the token of a bearer session', () => ({ origin: ORIGIN, 'x-csrf-token': 'x'.repeat(43) }), 'token'],
    ['from a foreign Origin', () => ({ origin: 'https://evil.example', 'x-csrf-token': csrf }), 'origin'],
    ['without Origin or Referer', () => ({ 'x-csrf-token': csrf }), 'origin'],
    ['with a foreign Referer', () => ({ referer: 'https://evil.example/page', 'x-csrf-token': csrf }), 'origin'],
  ];

  it.each(refused)('refuses a cookie-authenticated write %s with 403 CSRF_FAILED and changes nothing', async (_name, headers, reason) => {
    const before = await aerie.sql('select count(*)::int as n from accounts.webauthn_challenges');
    const res = await cookieRequest('POST', '/api/passkey/add/options', headers(), {});
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'CSRF_FAILED', reason });
    expect(await aerie.sql('select count(*)::int as n from accounts.webauthn_challenges')).toEqual(before);
  });

  it('accepts the write with the session CSRF token from an allowed Origin (or same-origin Referer)', async () => {
    expect((await cookieRequest('POST', '/api/passkey/add/options', { origin: ORIGIN, 'x-csrf-token': csrf }, {})).status).toBe(200);
    expect((await cookieRequest('POST', '/api/passkey/add/options', { referer: `${ORIGIN}/account/security`, 'x-csrf-token': csrf }, {})).status).toBe(200);
  });

  it('is accepted only by routes that declare it (bearer-only routes answer 401)', async () => {
    const res = await cookieRequest('PUT', '/api/v1/users/me/profile', { origin: ORIGIN, 'x-csrf-token': csrf }, { displayName: 'Bob' });
    expect(res.status).toBe(401);
  });

  it('logs out with the cookie: the session ends and the cookie is cleared', async () => {
    const res = await cookieRequest('POST', '/api/auth/logout', { origin: ORIGIN, 'x-csrf-token': csrf });
    expect(res.status).toBe(204);
    expect(res.headers.get('set-cookie')).toBe('__Host-aerie_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure');
    expect((await cookieRequest('GET', '/api/v1/users/me?_t=2')).status).toBe(401);
  });

  it('uses a plain aerie_session cookie without Secure on an http base URL', () => {
    const { config, pluginConfig } = loadConfiguration({ env: { AERIE_BASE_URL: 'http://localhost:3000' }, cwd: aerie.dataDir });
    const { absoluteTtlSeconds } = (pluginConfig('accounts') as { session: { absoluteTtlSeconds: number } }).session;
    expect(setSessionCookie(config, 't'.repeat(43), absoluteTtlSeconds)).toBe(`aerie_session=${'t'.repeat(43)}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax`);
    expect(clearSessionCookie(config)).toBe('aerie_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
  });
});
