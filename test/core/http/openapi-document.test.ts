import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { TestAerie } from '../../helpers/harness.ts';

/**
 * `GET /api/openapi.json` is a document a client generator accepts: valid OpenAPI 3.1 against the
 * official schema, with every route's answers described, every security scheme defined and every
 * `$ref` resolvable. Every plugin is enabled, with the test fixtures' partner plugins.
 * @see docs/api/openapi.md
 */

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

type Operation = { operationId: string; security?: Array<Record<string, string[]>>; parameters: Array<{ name: string; in: string; required: boolean; schema: unknown }>; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, unknown>> } };

describe('GET /api/openapi.json', () => {
  let aerie: TestAerie;
  let doc: Doc;
  let ops: Array<{ key: string; op: Operation }>;

  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_PLUGIN_PATHS: `${fixture('partner-plugin')},${fixture('seal-demo')},${fixture('jobs-demo')}` } });
    doc = (await aerie.request('GET', '/api/openapi.json')).body;
    ops = Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
  });
  afterAll(() => aerie?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents the partner plugins too', () => {
    expect(ops.map((o) => o.key)).toEqual(expect.arrayContaining(['POST /api/hello-partner/greetings', 'POST /api/seal-demo/docs', 'POST /api/jobs-demo/jobs']));
  });

  it('gives every route a success answer (2xx, or only redirects for a browser route such as /idp/{slug}/login) and a non-empty schema for each 2xx JSON answer (none for 204)', () => {
    for (const { key, op } of ops) {
      const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      const redirects = Object.keys(op.responses).filter((status) => /^30[12378]$/.test(status));
      expect(success.length + redirects.length, key).toBeGreaterThan(0);
      for (const [status, response] of success) {
        if (status === '204') {
          expect(response.content, `${key} ${status}`).toBeUndefined();
          continue;
        }
        const contents = Object.values(response.content ?? {});
        expect(contents.length, `${key} ${status} has no content`).toBeGreaterThan(0);
        for (const content of contents) {
          if (content.schema === undefined) continue; // a non-JSON media type (PDF, HTML)
          expect(Object.keys(content.schema as object).length, `${key} ${status}`).toBeGreaterThan(0);
        }
      }
      expect(op.responses.default, key).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
    }
  });

  it('has no schema left without a response for a JSON answer', () => {
    const missing = ops.filter(({ op }) => Object.entries(op.responses).some(([s, r]) => /^2\d\d$/.test(s) && s !== '204' && !r.content)).map((o) => o.key);
    expect(missing).toEqual([]);
  });

  it('defines every security scheme a route uses, with a correct Security Scheme Object', () => {
    const schemes = doc.components.securitySchemes;
    for (const { key, op } of ops) for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) expect(schemes[name], `${key}: ${name}`).toBeDefined();
    expect(schemes.session).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.machineToken).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(schemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(schemes.cookieSession).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(schemes.csrfToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-CSRF-Token' });
  });

  it('offers SCIM routes the SCIM token alone (a machine token is answered 401 there), and organization routes the cookie session beside the bearer one', () => {
    const scim = ops.filter(({ key }) => key.includes('/scim/v2/'));
    expect(scim.length).toBeGreaterThan(10);
    for (const { key, op } of scim) expect((op.security ?? []).flatMap((r: object) => Object.keys(r)), key).toEqual(['scimToken']);
    const members = ops.find(({ key }) => key === 'GET /api/org/{slug}/members')!;
    expect((members.op.security ?? []).flatMap((r: object) => Object.keys(r))).toEqual(expect.arrayContaining(['session', 'cookieSession', 'machineToken']));
    expect((members.op as Record<string, unknown>)['x-aerie-org-sessions']).toBe(true);
  });

  it('resolves every $ref', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (k === '$ref' && typeof v === 'string' ? refs.push(v) : walk(v));
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split('/').pop()!], ref).toBeTypeOf('object');
    }
  });

  it('uses JSON Schema 2020-12 types: no `nullable`, no `$id` inside components', () => {
    const text = JSON.stringify(doc.components.schemas);
    expect(text).not.toContain('"nullable"');
    expect(text).not.toContain('"$id"');
  });

  it('lists query parameters as `in: query` with their schemas, and typed path parameters', () => {
    const list = doc.paths['/api/org/{slug}/members']?.get;
    expect(list.parameters.find((p) => p.in === 'query')).toMatchObject({ in: 'query', required: false, schema: expect.any(Object) });
    const path = doc.paths['/api/org/{slug}/settings/keys/api-keys/{keyId}'].delete;
    expect(path.parameters.filter((p) => p.in === 'path')).toEqual([
      { name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 39 } },
      { name: 'keyId', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } },
    ]);
    expect(JSON.stringify(doc)).not.toContain('x-aerie-query-schema');
  });

  it('gives every operation a unique operationId and tags', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
