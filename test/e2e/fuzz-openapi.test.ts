import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TestAerie } from '../helpers/harness.ts';
import { analyticsRefs, type EndUserActivity } from '../../plugins/analytics/api.ts';
import { auditRefs, type BatchFiles } from '../../plugins/audit/api.ts';

/**
 * The hardening probe, kept as a test: walk `GET /api/openapi.json` and send every route with a
 * body, query or path parameter the inputs an attacker with a valid session would — wrong types,
 * missing and extra members, NUL bytes, lone surrogates, invalid UTF-8, 1 MB strings, 10,000-deep
 * nesting, non-finite numbers — asserting a 4xx error envelope, never a 5xx, and no row written
 * anywhere. Routes added later are covered by construction. `FUZZ_SEED` replays a run.
 */

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; format?: string; $ref?: string; additionalProperties?: unknown; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; minimum?: number; pattern?: string };
type Doc = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: Array<{ name: string; in: string; schema?: Schema }>; security?: unknown[]; tags?: string[] }>>; components: { schemas: Record<string, Schema> } };

/** A request as sent: method, path (already encoded), and either a JSON value or raw body bytes. */
interface Probe {
  kind: string;
  path: string;
  query?: string;
  json?: unknown;
  raw?: Buffer;
  /** True when every server must refuse it (4xx); false when it may be valid (then only "no 5xx"). */
  invalid: boolean;
  /** True when a path parameter is the hostile part (a mangled `{slug}` may rightly stop at authentication). */
  inPath?: boolean;
}

// Logging out would end the session the probe uses.
const SKIP = new Set(['POST /api/auth/logout']);
// Counters a refused request may legitimately move: rate limits count attempts.
const VOLATILE_TABLES = new Set(['core.rate_limits']);

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('fuzz: every route in /api/openapi.json refuses hostile input with a 4xx envelope and writes nothing', () => {
  let aerie: TestAerie;
  let token: string;
  let doc: Doc;
  let tables: string[];
  let apiKey: string;
  let scimToken: string;
  /** A cookie session (as Aerie's own pages hold one): the cookie, an allowed Origin and the session's CSRF token. */
  let cookieHeaders: Record<string, string>;
  /**
   * The credentials a route takes: the organization's API key (public API), its SCIM token (SCIM),
   * a cookie session with its CSRF token (routes only a cookie session may call), else the owner's session.
   */
  const authFor = (op: Doc['paths'][string][string]): Record<string, string> => {
    const schemes = JSON.stringify(op.security ?? []);
    if (schemes.includes('"apiKey"')) return { 'x-api-key': apiKey };
    const requirements = (op.security ?? []) as Array<Record<string, unknown>>;
    if (requirements.length > 0 && requirements.every((r) => 'cookieSession' in r)) return cookieHeaders;
    return { authorization: `Bearer ${schemes.includes('"scimToken"') ? scimToken : token}` };
  };

  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_PLATFORM_ADMINS: 'fuzz-owner@example.com' } });
    token = await aerie.signIn('fuzz-owner@example.com', 'Fuzz Owner');
    expect((await aerie.request('POST', '/api/org/create', { token, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    doc = (await aerie.request('GET', '/api/openapi.json')).body;
    // Routes of the public API take the organization's API key: with it, a probe reaches the handler.
    const key = await aerie.request('POST', '/api/org/acme/settings/keys/api-keys', { token, body: { name: 'fuzz' } });
    expect(key.status).toBe(201);
    apiKey = key.body.apiKey;
    // SCIM routes take the organization's SCIM token.
    const scim = await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token, body: { name: 'fuzz' } });
    expect(scim.status, JSON.stringify(scim.body)).toBe(201);
    scimToken = scim.body.value;
    // Routes only a cookie session may call (hosted sign-in's "connect") check its CSRF token and Origin first.
    const origin = aerie.kernel.config.webauthn.origins[0];
    await aerie.request('POST', '/api/v1/users/registration/email', { body: { email: 'fuzz-cookie@example.com' } });
    const cookie = await aerie.request('POST', '/api/v1/users/verification/email', { body: { email: 'fuzz-cookie@example.com', code: aerie.code('fuzz-cookie@example.com'), session: 'cookie' }, headers: { origin } });
    expect(cookie.status, JSON.stringify(cookie.body)).toBe(200);
    cookieHeaders = { cookie: cookie.headers.get('set-cookie')!.split(';')[0], origin, 'x-csrf-token': cookie.body.csrfToken };
    // Seal what set-up appended, then keep the background sealer and checkpoints still, so the row
    // counts before and after each request move only because of that request.
    await aerie.kernel.auditSealer.stop();
    await aerie.kernel.auditCheckpointer.flush();
    // The chain followers catch up once and stop: the projector's cursor and the raw archive's
    // files would otherwise move on their own timers.
    const projector = aerie.kernel.container.resolve<EndUserActivity>(analyticsRefs.activity.id);
    await projector.drain();
    await projector.stop();
    await aerie.kernel.container.resolve<BatchFiles>(auditRefs.batchFiles.id).stop();
    tables = (await aerie.sql(`select table_schema || '.' || table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') and table_name <> 'knex_migrations' and table_name <> 'knex_migrations_lock'`))
      .map((r) => r.t as string).filter((t) => !VOLATILE_TABLES.has(t)).sort();
  });
  afterAll(() => aerie?.close());

  const resolve = (s: Schema | undefined): Schema | undefined => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);

  /** A plausible value for a schema, so one bad member is the only thing wrong with a body. */
  function plausible(schema: Schema | undefined, name: string): unknown {
    const s = resolve(schema) ?? {};
    if (s.enum) return s.enum[0];
    const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.anyOf ? resolve(s.anyOf[0])?.type : undefined);
    if (type === 'integer' || type === 'number') return Math.max(1, s.minimum ?? 1);
    if (type === 'boolean') return true;
    if (type === 'array') return [];
    if (type === 'object') return Object.fromEntries((s.required ?? []).map((k) => [k, plausible(s.properties?.[k], k)]));
    if (s.format === 'email' || /email/i.test(name)) return 'someone@example.com';
    if (s.format === 'uuid' || /Id$/.test(name)) return '00000000-0000-4000-8000-000000000000';
    if (s.format === 'date-time') return new Date().toISOString();
    return 'x';
  }

  /** The mutations of one route, each a Probe. */
  function probes(method: string, path: string, op: Doc['paths'][string][string]): Array<fc.Arbitrary<Probe>> {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const fill = (values: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_m, p: string) => values[p] ?? (p === 'slug' ? 'acme' : '00000000-0000-4000-8000-000000000000'));
    const body = resolve(op.requestBody?.content['application/json']?.schema);
    const query: Schema = { properties: Object.fromEntries((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}])) };
    const base = body ? (plausible(body, 'body') as Record<string, unknown>) : undefined;
    const props = Object.keys(body?.properties ?? {});
    const stringProps = props.filter((k) => { const t = resolve(body!.properties![k])?.type; return t === 'string' || (Array.isArray(t) && t.includes('string')); });
    const out: Array<fc.Arbitrary<Probe>> = [];
    for (const p of params) {
      out.push(fc.constantFrom(
        { kind: `NUL in {${p}}`, path: fill({ [p]: 'ac%00me' }), invalid: true },
        { kind: `lone surrogate in {${p}}`, path: fill({ [p]: '%ED%A0%80x' }), invalid: false },
        { kind: `invalid UTF-8 in {${p}}`, path: fill({ [p]: '%FF%FE' }), invalid: false },
        { kind: `10 KB {${p}}`, path: fill({ [p]: 'a'.repeat(10_000) }), invalid: false },
      ).map((probe) => ({ ...probe, json: base, inPath: true })));
    }
    for (const q of Object.keys(query.properties ?? {})) {
      out.push(fc.constantFrom(
        { kind: `NUL in ?${q}`, query: `${q}=a%00b`, invalid: true },
        { kind: `non-finite ?${q}`, query: `${q}=1e309`, invalid: false },
        { kind: `array ?${q}`, query: `${q}=1&${q}=2`, invalid: false },
      ).map((probe) => ({ ...probe, path: fill(), json: base })));
    }
    if (body && method !== 'get') {
      const withValue = (k: string, v: unknown) => ({ ...base, [k]: v });
      out.push(fc.constant({ kind: 'extra member', path: fill(), json: { ...base, zzUnexpected: 1 }, invalid: body.additionalProperties === false }));
      out.push(fc.constant({ kind: 'not an object', path: fill(), json: [base], invalid: true }));
      out.push(fc.constant({ kind: 'invalid UTF-8 body', path: fill(), raw: Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]), invalid: true }));
      out.push(fc.constant({ kind: '10,000-deep body', path: fill(), raw: Buffer.from(`{"deep":${nested(10_000)}}`), invalid: true }));
      out.push(fc.constant({ kind: '1e999 in the body', path: fill(), raw: Buffer.from(`{"n":1e999${base && Object.keys(base).length ? `,${JSON.stringify(base).slice(1)}` : '}'}`), invalid: true }));
      if (props.length) {
        out.push(fc.tuple(fc.constantFrom(...props), fc.constantFrom<unknown>(null, 42, -1.5, true, [], {}, 'x'.repeat(300), [[[[[]]]]]))
          .map(([k, v]) => ({ kind: `${JSON.stringify(v).slice(0, 20)} as ${k}`, path: fill(), json: withValue(k, v), invalid: false })));
        out.push(fc.constantFrom(...props).map((k) => ({ kind: `10,000-deep ${k}`, path: fill(), raw: Buffer.from(JSON.stringify(withValue(k, 0)).replace(/0(?=[,}][^0]*$)/, nested(10_000))), invalid: true })));
      }
      if (stringProps.length) {
        out.push(fc.tuple(fc.constantFrom(...stringProps), fc.constantFrom('a\u0000b', 'x\ud800y'))
          .map(([k, v]) => ({ kind: `bad text in ${k}`, path: fill(), json: withValue(k, v), invalid: true })));
        out.push(fc.constantFrom(...stringProps).map((k) => ({ kind: `1 MB ${k}`, path: fill(), json: withValue(k, 'x'.repeat(1_000_000)), invalid: false })));
      }
      for (const k of body.required ?? []) {
        const rest = { ...base };
        delete rest[k];
        out.push(fc.constant({ kind: `missing ${k}`, path: fill(), json: rest, invalid: true }));
      }
    }
    return out;
  }

  async function send(method: string, probe: Probe, auth: Record<string, string> = { authorization: `Bearer ${token}` }): Promise<{ status: number; body: any }> {
    const url = `${aerie.url}${probe.path}${probe.query ? `?${probe.query}` : ''}`;
    const payload = probe.raw ? new Uint8Array(probe.raw) : probe.json !== undefined && method !== 'GET' && method !== 'DELETE' ? JSON.stringify(probe.json) : undefined;
    const res = await fetch(url, { method, headers: { ...auth, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, body: payload });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* an HTML page or an empty answer */
    }
    return { status: res.status, body };
  }

  const countRows = async (): Promise<Record<string, number>> => {
    const rows = await aerie.sql(tables.map((t) => `select '${t}' as t, count(*)::int as n from ${t}`).join(' union all '));
    return Object.fromEntries(rows.map((r) => [r.t, r.n]));
  };
  /**
   * Row counts of every table, recounted only when the transaction snapshot moved since the last
   * count. PostgreSQL hands every transaction that writes a row an id, so the same snapshot (next id
   * and ids in progress) proves nothing was committed since: most refused probes then cost one
   * cheap read instead of two counts of ~140 tables, which cost more than the request they check.
   */
  let last: { snapshot: string; rows: Record<string, number> } | undefined;
  const counts = async (): Promise<Record<string, number>> => {
    const [{ snapshot }] = await aerie.sql<{ snapshot: string }>('select pg_current_snapshot()::text as snapshot');
    if (last?.snapshot !== snapshot) last = { snapshot, rows: await countRows() };
    return last.rows;
  };

  it('sees a row written, and the same snapshot means the same rows', async () => {
    const quiet = await counts();
    expect(await counts()).toEqual(quiet);
    const group = await aerie.request('POST', '/api/org/acme/app-groups', { token, body: { name: 'Detector check' } });
    expect(group.status).toBe(201);
    const moved = await counts();
    expect(Object.keys(moved).filter((t) => moved[t] !== quiet[t])).toContain('apps.app_groups');
  });

  it('walks every route with inputs', async () => {
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })))
      .filter((r) => !SKIP.has(`${r.method} ${r.path}`));
    let sent = 0;
    const failures: string[] = [];
    /**
     * Routes probed with their path intact, and those of them some such probe got past authentication
     * on (an answer other than 401 and 403 `CSRF_FAILED`).
     */
    const reached = new Set<string>();
    const probed = new Set<string>();
    for (const { method, path, op } of routes) {
      const arbitraries = probes(method.toLowerCase(), path, op);
      if (arbitraries.length === 0) continue;
      await fc.assert(fc.asyncProperty(fc.oneof(...arbitraries), async (probe) => {
        const before = await counts();
        const res = await send(method, probe, authFor(op));
        sent++;
        if (!probe.inPath) {
          probed.add(`${method} ${path}`);
          if (res.status !== 401 && res.body?.error !== 'CSRF_FAILED') reached.add(`${method} ${path}`);
        }
        const where = `${method} ${path} (${probe.kind}) → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`;
        if (res.status >= 500) failures.push(where);
        if (probe.invalid && (res.status < 400 || res.status >= 500)) failures.push(`expected 4xx: ${where}`);
        // Pages (tag `pages`) answer people with HTML, a 404 page included; every API answer uses the envelope.
        const page = op.tags?.includes('pages') && typeof res.body === 'string' && res.body.startsWith('<!doctype html>');
        // SCIM answers RFC 7644's error body (section 3.12), which SCIM clients parse.
        const scimError = path.startsWith('/scim/v2/') && Array.isArray(res.body?.schemas) && res.body.schemas.includes('urn:ietf:params:scim:api:messages:2.0:Error') && res.body.status === String(res.status);
        if (res.status >= 400 && !page && !scimError && (typeof res.body !== 'object' || typeof res.body?.error !== 'string')) failures.push(`no envelope: ${where}`);
        if (res.status >= 400) {
          const after = await counts();
          const changed = Object.keys(after).filter((t) => after[t] !== before[t]);
          if (changed.length) failures.push(`rows written (${changed.join(', ')}): ${where}`);
        }
      }), { numRuns: Math.min(12, arbitraries.length * 3), seed: SEED });
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(200);
    // Each route was probed with credentials it takes: a probe stopped at the door tests nothing.
    expect([...probed].filter((r) => !reached.has(r))).toEqual([]);
  }, 300_000);

  it('refuses hostile form input on the OpenID provider\'s endpoints (token, introspection, revocation, userinfo) with an OAuth error, never a 5xx, writing nothing', async () => {
    // The provider parses its own form bodies (application/x-www-form-urlencoded): the kernel's input checks never see them.
    const group = await aerie.request('POST', '/api/org/acme/app-groups', { token, body: { name: 'Fuzz shop' } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const { id: appId, clientKey, clientSecret } = group.body.application as { id: string; clientKey: string; clientSecret: string };
    // A usable client (it needs a redirect URI), so probes reach the provider's token lookups.
    expect((await aerie.request('PUT', `/api/org/acme/applications/${appId}`, { token, body: { redirectUris: ['https://app.example/cb'] } })).status).toBe(200);
    const basic = `Basic ${Buffer.from(`${clientKey}:${clientSecret}`).toString('base64')}`;
    const endpoints: Array<[string, Record<string, string>]> = [
      ['/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }],
      ['/oauth/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://app.example/cb', code_verifier: 'v'.repeat(43) }],
      ['/oauth/token', { grant_type: 'client_credentials', scope: 'openid' }],
      ['/oauth/introspect', { token: 'x', token_type_hint: 'refresh_token' }],
      ['/oauth/revoke', { token: 'x', token_type_hint: 'access_token' }],
    ];
    // Hostile values, percent-encoded as a form carries them.
    const hostile = ['a%00b', '%00', '%ED%A0%80', '%FF%FE', 'x'.repeat(100_000), '%E2%80%AE', '1e309'];
    const failures: string[] = [];
    let sent = 0;
    const issuer = `${aerie.url}/api/public/orgs/acme`;
    // Every field with every value, with and without the client's credentials (a few hundred requests).
    const cases = endpoints.flatMap(([path, form]) => Object.keys(form).flatMap((field) => hostile.flatMap((value) => [true, false].map((authenticated) => ({ path, form, field, value, authenticated })))));
    for (const { path, form, field, value, authenticated } of cases) {
      {
        const body = Object.entries(form).map(([k, v]) => `${k}=${k === field ? value : encodeURIComponent(v)}`).join('&');
        const before = await counts();
        const res = await fetch(`${issuer}${path}`, {
          method: 'POST', body,
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authenticated ? { authorization: basic } : {}) },
        });
        const text = await res.text();
        sent++;
        const where = `POST ${path} (${field}=${value.slice(0, 12)}, ${authenticated ? 'client' : 'no client'}) → ${res.status} ${text.slice(0, 160)}`;
        if (res.status >= 500) failures.push(where);
        if (res.status >= 400 && !/"error"/.test(text)) failures.push(`no OAuth error: ${where}`);
        const after = await counts();
        const changed = Object.keys(after).filter((t) => after[t] !== before[t] && t !== 'oidc.payloads');
        if (changed.length) failures.push(`rows written (${changed.join(', ')}): ${where}`);
      }
    }
    for (const value of hostile) {
      const res = await fetch(`${issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${value}` } });
      sent++;
      if (res.status >= 500) failures.push(`GET /oauth/userinfo (${value.slice(0, 12)}) → ${res.status}`);
    }
    // A client id with NUL or broken text, in HTTP Basic and in the form (client_secret_post).
    for (const clientId of ['a%00b', '%ED%A0%80', 'x'.repeat(600)]) {
      for (const headers of [{ authorization: `Basic ${Buffer.from(`${clientId}:s`).toString('base64')}` }, {}] as Array<Record<string, string>>) {
        const form = `grant_type=client_credentials${'authorization' in headers ? '' : `&client_id=${clientId}&client_secret=s`}`;
        const res = await fetch(`${issuer}/oauth/token`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
        sent++;
        if (res.status >= 500 || res.status < 400) failures.push(`POST /oauth/token (client id ${JSON.stringify(clientId.slice(0, 8))}) → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBe(cases.length + hostile.length + 6);
  }, 120_000);

  it('answers every path parameter shaped like a UUID without being one with a 4xx, never a 5xx (each route, each parameter)', async () => {
    // A loose id check (length, hex-or-dash) once let such a value reach a uuid column: a 500.
    const lookalikes = ['-'.repeat(36), 'zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz', '00000000-0000-4000-8000-00000000000'];
    const failures: string[] = [];
    let sent = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((p) => p !== 'slug');
      for (const [method, op] of Object.entries(ops)) {
        if (SKIP.has(`${method.toUpperCase()} ${path}`)) continue;
        for (const param of params) {
          for (const value of lookalikes) {
            const filled = path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === param ? value : p === 'slug' ? 'acme' : '00000000-0000-4000-8000-000000000000'));
            const res = await send(method.toUpperCase(), { kind: 'uuid lookalike', path: filled, json: {}, invalid: true }, authFor(op));
            sent++;
            if (res.status >= 500 || res.status < 400) failures.push(`${method.toUpperCase()} ${filled} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)} (${op.tags?.join(',')})`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(100);
  }, 120_000);
});
