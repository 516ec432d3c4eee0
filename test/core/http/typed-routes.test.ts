import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route, schemaRef, type AccountPrincipal, type MemberOrgContext, type OrgContext, type Principal, type RouteSchema } from '../../../core/http/route.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { buildOpenApi } from '../../../core/http/openapi.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';

const noteBody = {
  $id: 'test/note.body',
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: { title: { type: 'string', minLength: 1 }, pinned: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } },
} as const satisfies RouteSchema;

const listQuery = {
  $id: 'test/list.query',
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1 } },
} as const satisfies RouteSchema;

describe('route() narrows the handler input from the definition', () => {
  it('types body and query from the schemas, params from the path, principal and org from auth and org', () => {
    route({
      method: 'POST', path: '/api/org/{slug}/notes/{noteId}', auth: 'session', org: true, body: noteBody, query: listQuery,
      handler: ({ body, query, params, principal, org }) => {
        expectTypeOf(body).toEqualTypeOf<{ title: string; pinned?: boolean; tags?: string[] }>();
        expectTypeOf(query.limit).toEqualTypeOf<number | undefined>();
        expectTypeOf(params).toEqualTypeOf<{ slug: string; noteId: string }>();
        expectTypeOf(principal).toEqualTypeOf<Principal>();
        expectTypeOf(org).toEqualTypeOf<OrgContext>();
      },
    });
    route({
      method: 'GET', path: '/api/public/things', auth: 'public',
      handler: ({ principal, org, body }) => {
        expectTypeOf(principal).toEqualTypeOf<null>();
        expectTypeOf(org).toEqualTypeOf<null>();
        expectTypeOf(body).toEqualTypeOf<unknown>();
      },
    });
    route({
      method: 'GET', path: '/api/things', auth: ['session', 'machineToken'], guard: ({ principal }) => void expectTypeOf(principal).toEqualTypeOf<Principal>(),
      handler: ({ principal }) => expectTypeOf(principal).toEqualTypeOf<Principal>(),
    });
  });

  it('gives an account principal where only sessions reach the handler', () => {
    route({ method: 'GET', path: '/api/me/things', auth: 'session', handler: ({ principal }) => expectTypeOf(principal).toEqualTypeOf<AccountPrincipal>() });
    route({ method: 'GET', path: '/api/me/more', auth: ['session', 'cookieSession'], handler: ({ principal }) => expectTypeOf(principal.accountId).toEqualTypeOf<string>() });
    // Organization credentials ride on an org route unless it is person-only.
    route({ method: 'GET', path: '/api/org/{slug}/x', auth: 'session', org: true, handler: ({ principal }) => expectTypeOf(principal).toEqualTypeOf<Principal>() });
    route({
      method: 'POST', path: '/api/org/{slug}/y', auth: 'session', org: true, personOnly: 'an owner decides',
      guard: ({ principal }) => void expectTypeOf(principal).toEqualTypeOf<AccountPrincipal>(),
      handler: ({ principal, org }) => {
        expectTypeOf(principal).toEqualTypeOf<AccountPrincipal>();
        // A person's organization context carries their membership.
        expectTypeOf(org).toEqualTypeOf<MemberOrgContext>();
      },
    });
    route({ method: 'GET', path: '/api/org/{slug}/z', auth: 'session', org: true, handler: ({ org }) => expectTypeOf(org.membership).toEqualTypeOf<OrgContext['membership']>() });
    route({ method: 'GET', path: '/api/mixed', auth: ['session', 'apiKey'], handler: ({ principal }) => expectTypeOf(principal).toEqualTypeOf<Principal>() });
  });
});

describe('schemas given as objects', () => {
  let server: Server;
  let base: string;
  const schemas = new SchemaRegistry();
  const def = route({
    method: 'POST', path: '/api/notes', auth: 'public', body: noteBody, status: 201,
    handler: ({ body }) => ({ title: body.title.toUpperCase() }),
  });

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: [{ pluginId: 'notes', def }], schemas, authSchemes: new Map() }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  const post = (body: unknown) => fetch(`${base}/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('are registered by $id, validated (ajv strict) and passed to the handler', async () => {
    const ok = await post({ title: 'hi' });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ title: 'HI' });
    const bad = await post({ title: 'hi', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'VALIDATION_FAILED', message: expect.any(String), field: 'colour' });
  });

  it('appear in the OpenAPI document under their $id', () => {
    const doc = buildOpenApi([def], schemas, { version: '0', baseUrl: 'http://x' }) as { components: { schemas: Record<string, unknown> }; paths: Record<string, { post: { requestBody: unknown } }> };
    const { $id: _id, ...published } = noteBody;
    expect(doc.components.schemas['test.note.body']).toEqual(published);
    expect(JSON.stringify(doc.paths['/api/notes'].post.requestBody)).toContain('#/components/schemas/test.note.body');
  });

  it('refuse another schema object with the same $id at boot, naming the plugin', () => {
    const twin = { ...noteBody, required: [] } as const satisfies RouteSchema;
    const other = route({ method: 'PUT', path: '/api/notes', auth: 'public', body: twin, handler: () => undefined });
    expect(() => buildRouter({ routes: [{ pluginId: 'notes', def }, { pluginId: 'twin', def: other }], schemas: new SchemaRegistry(), authSchemes: new Map() }))
      .toThrow(new BootError('plugin twin: route PUT /api/notes: duplicate schema $id test/note.body'));
  });
});

describe('response schemas, checked when the router validates answers (tests only)', () => {
  const tag = { $id: 'test/Tag', type: 'object', required: ['name'], properties: { name: { type: 'string' } } } as const satisfies RouteSchema;
  const noteResponse = { $id: 'test/note.response', type: 'object', additionalProperties: false, required: ['title', 'tag'], properties: { title: { type: 'string' }, tag: schemaRef(tag) } } as const satisfies RouteSchema;
  let server: Server;
  let base: string;
  let answer: unknown;
  const def = route({
    method: 'GET', path: '/api/note', auth: 'public',
    response: noteResponse,
    handler: () => answer,
  });

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: [{ pluginId: 'notes', def }], schemas: new SchemaRegistry(), authSchemes: new Map(), validateResponses: true }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('passes an answer that matches, with a shared schema named by schemaRef', async () => {
    answer = { title: 'a', tag: { name: 'x' } };
    const res = await fetch(`${base}/api/note`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(answer);
  });

  it('answers 500 for an answer that does not match (an undocumented member, a wrong shared member)', async () => {
    for (const wrong of [{ title: 'a', tag: { name: 'x' }, extra: 1 }, { title: 'a', tag: { name: 3 } }]) {
      answer = wrong;
      const res = await fetch(`${base}/api/note`);
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: 'INTERNAL_ERROR' });
    }
  });

  it('publishes the answer and the shared schema it names as components', () => {
    const doc = buildOpenApi([def], (() => { const s = new SchemaRegistry(); s.use(noteResponse); return s; })(), { version: '0', baseUrl: 'http://x' }) as any;
    expect(doc.paths['/api/note'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/test.note.response' });
    expect(doc.components.schemas['test.note.response'].properties.tag).toEqual({ $ref: '#/components/schemas/test.Tag' });
    expect(doc.components.schemas['test.Tag']).toEqual({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
  });
});
