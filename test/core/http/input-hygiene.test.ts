import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { TestAerie } from '../../helpers/harness.ts';
import { assertCleanInput } from '../../../core/http/input-hygiene.ts';

const ORIGIN = 'https://aerie.test';

/** Sends raw bytes as the body, with the given headers; answers status, headers and parsed body. */
function rawPost(url: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return fetch(url + path, { method: "POST", body: new Uint8Array(body), headers }).then(async (res) => ({ status: res.status, body: await res.json() }));
}

/** One request through node:http, so methods and URL lengths fetch refuses can be sent. */
function send(url: string, method: string, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { method }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('kernel: text and numbers every route refuses, and answers Node would give bare', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_BASE_URL: ORIGIN } });
  });
  afterAll(() => aerie?.close());

  const accounts = async () => (await aerie.sql(`select count(*)::int as n from accounts.accounts`))[0].n as number;

  it.each([
    ['a NUL in a display name (no sign-in needed)', { email: 'nul@example.com', displayName: 'Eve\u0000' }, 'displayName'],
    ['a NUL in the email', { email: 'n\u0000ul@example.com' }, 'email'],
    ['a lone surrogate', { email: 'sur@example.com', displayName: 'x\ud800' }, 'displayName'],
  ])('refuses %s with 400 VALIDATION_FAILED and creates no account', async (_name, body, field) => {
    const before = await accounts();
    const res = await aerie.request('POST', '/api/v1/users/registration/email', { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
    expect(await accounts()).toBe(before);
  });

  it('refuses %00 in a path segment before the database sees it (400, not 500)', async () => {
    for (const path of ['/api/public/orgs/ac%00me/.well-known/jwks.json', '/api/public/orgs/ac%00me/.well-known/openid-configuration']) {
      const res = await aerie.request('GET', path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'slug' });
    }
  });

  it('refuses a body that is not UTF-8 (400 INVALID_JSON) and a compressed one (415)', async () => {
    const bad = Buffer.concat([Buffer.from('{"email":"utf@example.com","displayName":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await rawPost(aerie.url, '/api/v1/users/registration/email', bad, { 'content-type': 'application/json' });
    expect(res).toEqual({ status: 400, body: { error: 'INVALID_JSON', message: expect.stringMatching(/UTF-8/) } });
    const gz = await rawPost(aerie.url, '/api/v1/users/registration/email', Buffer.from('{}'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gz.status).toBe(415);
    expect(gz.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses non-finite numbers in bodies (1e999) and queries (limit=1e309), naming the field', async () => {
    const token = await aerie.signIn('finite@example.com');
    const body = await rawPost(aerie.url, '/api/v1/users/registration/email', Buffer.from('{"email":"f@example.com","displayName":"x","n":1e999}'), { 'content-type': 'application/json' });
    expect(body.status).toBe(400);
    for (const limit of ['1e309', '-1e309', '0', '201']) {
      const res = await aerie.request('GET', `/api/auth/activity-log?limit=${limit}`, { token });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'limit' });
    }
    expect((await aerie.request('GET', '/api/auth/activity-log?limit=200', { token })).status).toBe(200);
  });

  it('answers TRACE with 501 and an over-long URL with 431, both in the error envelope', async () => {
    const trace = await send(aerie.url, 'TRACE', '/api/v1/users/me');
    expect(trace.status).toBe(501);
    expect(JSON.parse(trace.body)).toMatchObject({ error: 'NOT_IMPLEMENTED' });
    const long = await send(aerie.url, 'GET', `/api/v1/users/me?x=${'a'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(long.body)).toMatchObject({ error: 'HEADERS_TOO_LARGE' });
  });

  it('sends Cache-Control: no-store on every answer unless the route sets its own (the JWKS keeps max-age)', async () => {
    const register = await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'cache@example.com' } });
    const signedIn = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'cache@example.com', code: aerie.code('cache@example.com') } });
    expect(signedIn.body.sessionToken).toEqual(expect.any(String));
    for (const res of [register, signedIn, await aerie.request('GET', '/api/nothing-here'), await aerie.request('GET', '/readyz')]) {
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await aerie.request('GET', '/api/public/audit/.well-known/jwks.json')).headers.get('cache-control')).toMatch(/max-age=/);
  });

  it('answers 401 to an invalid bearer token even when the request carries a valid session cookie', async () => {
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'cookie@example.com' } });
    const signedIn = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'cookie@example.com', code: aerie.code('cookie@example.com'), session: 'cookie' }, headers: { origin: ORIGIN } });
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
    expect((await aerie.request('GET', '/api/v1/users/me', { headers: { cookie } })).status).toBe(200);
    const res = await aerie.request('GET', '/api/v1/users/me', { headers: { cookie, authorization: 'Bearer not-a-valid-token' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHORIZED');
  });
});

describe('assertCleanInput names the first bad value by its dotted path', () => {
  const deep = (n: number, leaf: unknown) => {
    let v: unknown = leaf;
    for (let i = 0; i < n; i++) v = { a: [v] };
    return v;
  };
  it.each<[string, unknown, string | null]>([
    ['clean nested data', { events: [{ name: 'ok 🦅', n: 1.5, tags: ['a', null, true] }] }, null],
    ['a NUL in a nested array member', { events: [{ name: 'ok' }, { tags: ['x', 'y\u0000'] }] }, 'events.1.tags.1'],
    ['a lone surrogate in a member name', { events: [{ ['k\udc00']: 1 }] }, 'events.0'],
    ['a bad member name at the top', { ['\u0000']: 1 }, 'body'],
    ['a non-finite number', { page: { size: Infinity } }, 'page.size'],
    ['NaN at the top of an array body', [NaN], '0'],
    ['a NUL 50,000 levels down (no recursion)', deep(50_000, 'x\u0000'), `${'a.0.'.repeat(50_000)}`.slice(0, -1)],
  ])('%s', (_name, value, field) => {
    if (field === null) return expect(() => assertCleanInput(value, 'body')).not.toThrow();
    expect(() => assertCleanInput(value, 'body')).toThrow(expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED', fields: { field } }));
  });
});
