import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { TestAerie, type TestResponse } from '../../helpers/harness.ts';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (ajv: Ajv) => Ajv;

const REGISTER = '/api/v1/users/registration/email';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('HTTP basics', () => {
  let aerie: TestAerie;
  let ann: string;
  const codeCount = async () => (await aerie.sql<{ n: number }>('select count(*)::int as n from accounts.email_codes'))[0].n;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    ann = await aerie.signIn('ann@example.com');
  });
  afterAll(() => aerie?.close());

  describe('health', () => {
    it('GET /healthz answers 200 while the process is up', async () => {
      const res = await aerie.request('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it("GET /readyz answers 200 {status:'ready'} when the database answers", async () => {
      const res = await aerie.request('GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ready', database: process.env.TEST_DATABASE_URL ? 'pg' : 'pglite' });
    });
  });

  describe('error envelope', () => {
    it.each([
      ['GET', '/api/no-such-thing'],
      ['POST', '/api/no-such-thing'],
      ['GET', '/'],
    ])('answers an unknown route (%s %s) with 404 NOT_FOUND', async (method, path) => {
      const res = await aerie.request(method, path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ error: 'NOT_FOUND', message: expect.any(String) });
    });

    it('answers a known path with the wrong method 405 METHOD_NOT_ALLOWED, with Allow', async () => {
      const res = await aerie.request('DELETE', '/healthz');
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ error: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
      expect(res.headers.get('allow')).toMatch(/\bGET\b/);
    });
  });

  describe('X-Request-Id', () => {
    it('is on every answer, success or error', async () => {
      const answers: Array<[string, TestResponse]> = [
        ['200', await aerie.request('GET', '/healthz')],
        ['202', await aerie.request('POST', REGISTER, { body: { email: 'rid@example.com' } })],
        ['400', await aerie.request('POST', REGISTER, { body: '{' })],
        ['401', await aerie.request('GET', '/api/v1/users/me')],
        ['404', await aerie.request('GET', '/api/nope')],
        ['413', await aerie.request('POST', REGISTER, { body: { email: 'rid@example.com', displayName: 'a'.repeat(1.1 * 1024 * 1024) } })],
        ['415', await aerie.request('POST', REGISTER, { body: 'email=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
      ];
      const ids = new Set<string>();
      for (const [status, res] of answers) {
        expect(String(res.status), `answer ${status}`).toBe(status);
        const id = res.headers.get('x-request-id');
        expect(id, `answer ${status}`).toMatch(UUID);
        ids.add(id!);
      }
      expect(ids.size).toBe(answers.length);
    });

    it('echoes a sane client request id', async () => {
      for (const sent of ['req-0123456789abcdef', 'A1b2C3d4.e5_f6-g7', 'x'.repeat(128)]) {
        const res = await aerie.request('GET', '/healthz', { headers: { 'x-request-id': sent } });
        expect(res.headers.get('x-request-id')).toBe(sent);
      }
      const failed = await aerie.request('GET', '/api/nope', { headers: { 'x-request-id': 'trace-id-from-the-lb' } });
      expect(failed.status).toBe(404);
      expect(failed.headers.get('x-request-id')).toBe('trace-id-from-the-lb');
    });

    it.each([
      ['too short', 'abc'],
      ['too long', 'x'.repeat(129)],
      ['with spaces', 'has spaces in it'],
      ['with other characters', 'id<script>alert(1)</script>'],
    ])('replaces a client request id that is %s', async (_label, sent) => {
      const res = await aerie.request('GET', '/healthz', { headers: { 'x-request-id': sent } });
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    });
  });

  describe('request bodies', () => {
    it('writes an email code for a good request (the count below can see a write)', async () => {
      const before = await codeCount();
      const res = await aerie.request('POST', REGISTER, { body: { email: 'good@example.com' } });
      expect(res.status).toBe(202);
      expect(await codeCount()).toBe(before + 1);
    });

    const big = JSON.stringify({ email: 'big@example.com', displayName: 'a'.repeat(Math.ceil(1.1 * 1024 * 1024)) });
    it.each<[string, { body?: unknown; headers?: Record<string, string> }, number, string, string | undefined]>([
      ['malformed JSON', { body: '{"email": "a@example.com",' }, 400, 'INVALID_JSON', undefined],
      ['JSON null (not an object)', { body: 'null' }, 400, 'INVALID_JSON', undefined],
      ['a body over 1 MiB', { body: big }, 413, 'PAYLOAD_TOO_LARGE', undefined],
      ['text/plain', { body: '{"email":"a@example.com"}', headers: { 'content-type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', undefined],
      ['a form', { body: 'email=a%40example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', undefined],
      ['a missing field', { body: {} }, 400, 'VALIDATION_FAILED', 'email'],
      ['a number for a string', { body: { email: 42 } }, 400, 'VALIDATION_FAILED', 'email'],
      ['an invalid email', { body: { email: 'not-an-email' } }, 400, 'VALIDATION_FAILED', 'email'],
      ['an empty optional field', { body: { email: 'a@example.com', displayName: '' } }, 400, 'VALIDATION_FAILED', 'displayName'],
      ['an unknown field', { body: { email: 'a@example.com', admin: true } }, 400, 'VALIDATION_FAILED', 'admin'],
      ['an array for the body', { body: [{ email: 'a@example.com' }] }, 400, 'VALIDATION_FAILED', 'body'],
    ])('refuses %s with %i %s and writes nothing', async (_label, opts, status, code, field) => {
      const before = await codeCount();
      const res = await aerie.request('POST', REGISTER, opts);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error: code, message: expect.any(String) });
      if (field) expect(res.body.field).toBe(field);
      if (status === 413) expect(res.body.limitBytes).toBe(1024 * 1024);
      expect(await codeCount()).toBe(before);
    });

    it('validates bodies on authenticated routes too, after authentication', async () => {
      const anonymous = await aerie.request('PUT', '/api/v1/users/me/profile', { body: { displayName: 42 } });
      expect(anonymous.status).toBe(401);
      const bad = await aerie.request('PUT', '/api/v1/users/me/profile', { token: ann, body: { displayName: 42 } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'displayName' });
      const rows = await aerie.sql(`select display_name from accounts.accounts where email = 'ann@example.com'`);
      expect(rows).toEqual([{ display_name: null }]);
    });
  });

  describe('OpenAPI', () => {
    let doc: any;
    beforeAll(async () => {
      const res = await aerie.request('GET', '/api/openapi.json');
      expect(res.status).toBe(200);
      doc = res.body;
    });

    it('is OpenAPI 3.1.0 with the package version and the configured base URL', () => {
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info).toMatchObject({ title: 'Aerie', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      expect(doc.servers).toEqual([{ url: aerie.kernel.config.baseUrl }]);
    });

    it('lists exactly the routes of the kernel route table', () => {
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
      );
      const served = aerie.kernel.routes.map((r) => `${r.method} ${r.path}`);
      expect(new Set(served).size).toBe(served.length);
      expect(new Set(documented)).toEqual(new Set(served));
      expect(documented).toHaveLength(served.length);
      for (const known of ['GET /healthz', 'GET /readyz', `POST ${REGISTER}`, 'POST /api/org/create']) expect(documented).toContain(known);
    });

    it('gives every operation a unique operationId and its path parameters', () => {
      const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) => Object.values(byMethod).map((op) => ({ path, op })));
      const opIds = ops.map(({ op }) => op.operationId);
      expect(new Set(opIds).size).toBe(opIds.length);
      for (const { path, op } of ops) {
        const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        expect(op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name)).toEqual(names);
      }
    });

    it('resolves every $ref to a component, and every route body schema is referenced', () => {
      const refs: string[] = [];
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (node && typeof node === 'object') {
          for (const [k, v] of Object.entries(node)) {
            if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) refs.push(v);
            else walk(v);
          }
        }
      };
      walk(doc.paths);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const target = ref.slice(2).split('/').reduce<any>((node, part) => node?.[part], doc);
        expect(target, ref).toBeTypeOf('object');
      }
      const bodyRefs = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((byMethod) =>
        // Upload routes (rawBody) publish application/octet-stream instead of a JSON schema.
        Object.values(byMethod).flatMap((op) => (op.requestBody?.content['application/json'] ? [op.requestBody.content['application/json'].schema.$ref] : [])),
      );
      expect(bodyRefs).toHaveLength(aerie.kernel.routes.filter((r) => r.body).length);
      expect(bodyRefs).toContain('#/components/schemas/accounts.registration-email.body');
    });

    it('has component schemas that all compile', () => {
      const ajv = new Ajv({ strict: false });
      addFormats(ajv);
      const schemas = Object.keys(doc.components.schemas as Record<string, unknown>);
      expect(schemas.length).toBeGreaterThan(1);
      ajv.addSchema({ components: doc.components }, 'openapi');
      const compile = (name: string) => ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
      for (const name of schemas) expect(compile(name), name).toBeTypeOf('function');
      const validateRegistration = compile('accounts.registration-email.body');
      expect(validateRegistration({ email: 'a@example.com' })).toBe(true);
      expect(validateRegistration({ email: 'a@example.com', admin: true })).toBe(false);
    });
  });
});

describe('OpenAPI security schemes', () => {
  it('describes the cookie session as a cookie, not a bearer token', async () => {
    const aerie = await TestAerie.start({ plugins: ['accounts'] });
    try {
      const doc = (await aerie.request('GET', '/api/openapi.json')).body;
      expect(doc.components.securitySchemes.cookieSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
      expect(doc.components.securitySchemes.session).toMatchObject({ type: 'http', scheme: 'bearer' });
    } finally {
      await aerie.close();
    }
  });
});
