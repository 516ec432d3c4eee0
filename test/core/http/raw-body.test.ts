import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { chunkedFlood, FLOOD_MAX } from '../../helpers/chunked-flood.ts';
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route, type RouteSchema } from '../../../core/http/route.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { buildOpenApi } from '../../../core/http/openapi.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';

const LIMIT = 64 * 1024;

/** Routes with `rawBody`: the handler gets the bytes; past the limit the read stops with 413. */
describe('http: raw request bodies (rawBody)', () => {
  let server: Server;
  let base: string;
  let port: number;
  const def = route({
    method: 'POST', path: '/api/upload', auth: 'public', rawBody: { maxBytes: LIMIT },
    handler: ({ rawBody }) => {
      expectTypeOf(rawBody).toEqualTypeOf<Buffer>();
      return { size: rawBody.length, sha256: createHash('sha256').update(rawBody).digest('hex') };
    },
  });
  const signedBody = { $id: 'test/signed.body', type: 'object', required: ['event'], additionalProperties: false, properties: { event: { type: 'string' } } } as const satisfies RouteSchema;
  const signedDef = route({
    method: 'POST', path: '/api/signed', auth: 'public', body: signedBody, keepRawBody: true,
    handler: ({ body, rawBody }) => {
      expectTypeOf(rawBody).toEqualTypeOf<Buffer>();
      return { event: body.event, sha256: createHash('sha256').update(rawBody).digest('hex') };
    },
  });
  const formDef = route({
    method: 'POST', path: '/api/form', auth: 'public', rawBody: { maxBytes: LIMIT, form: true },
    handler: ({ form, rawBody }) => {
      expectTypeOf(form).toEqualTypeOf<URLSearchParams>();
      return { fields: [...form.entries()], size: rawBody.length };
    },
  });

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: [{ pluginId: 'files', def }, { pluginId: 'files', def: formDef }, { pluginId: 'files', def: signedDef }], schemas: new SchemaRegistry(), authSchemes: new Map() }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  const upload = (body: Uint8Array<ArrayBuffer>, type = 'application/octet-stream') => fetch(`${base}/api/upload`, { method: 'POST', headers: { 'content-type': type }, body });

  it('hands the exact bytes to the handler, whatever the Content-Type but JSON', async () => {
    const bytes = new Uint8Array(LIMIT).map((_, i) => (i * 7) % 256);
    for (const type of ['application/octet-stream', 'image/png', 'text/plain']) {
      const res = await upload(bytes, type);
      expect(await res.json()).toEqual({ size: LIMIT, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
    const empty = await fetch(`${base}/api/upload`, { method: 'POST' });
    expect((await empty.json()).size).toBe(0);
  });

  it('with form: true, hands over the fields of a form-encoded body (UTF-8), and none for another Content-Type', async () => {
    const post = (body: string, type?: string) => fetch(`${base}/api/form`, { method: 'POST', body, ...(type ? { headers: { 'content-type': type } } : {}) }).then((r) => r.json());
    const sent = 'access_token=a%2Bb&x=1&x=2&name=%C3%A9t%C3%A9&bad=%FF';
    expect(await post(sent, 'application/x-www-form-urlencoded; charset=utf-8')).toEqual({
      fields: [['access_token', 'a+b'], ['x', '1'], ['x', '2'], ['name', 'été'], ['bad', '\uFFFD']], size: sent.length,
    });
    expect(await post(sent, 'text/plain')).toEqual({ fields: [], size: sent.length });
    expect(await post('', 'application/x-www-form-urlencoded')).toEqual({ fields: [], size: 0 });
  });

  it('with keepRawBody beside a JSON body, hands over the bytes as received (spacing, key order, escapes) and the validated value', async () => {
    const sent = '{ "event" :"a\\u00e9b"  }\n';
    const res = await fetch(`${base}/api/signed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sent });
    expect(await res.json()).toEqual({ event: 'aéb', sha256: createHash('sha256').update(sent).digest('hex') });
    const bad = await fetch(`${base}/api/signed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"event":1}' });
    expect(bad.status).toBe(400);
  });

  it('refuses keepRawBody without a JSON body at boot', () => {
    const def = route({ method: 'POST', path: '/api/x', auth: 'public', keepRawBody: true, handler: () => ({}) });
    expect(() => buildRouter({ routes: [{ pluginId: 'p', def }], schemas: new SchemaRegistry(), authSchemes: new Map() })).toThrow(BootError);
  });

  it('answers 413 PAYLOAD_TOO_LARGE with limitBytes one byte past the limit', async () => {
    const res = await upload(new Uint8Array(LIMIT + 1));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', limitBytes: LIMIT });
  });

  it('cuts a chunked upload off at the limit instead of reading it all', async () => {
    const answer = await chunkedFlood(port, '/api/upload', 'application/octet-stream');
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', limitBytes: LIMIT });
    expect(answer.sent).toBeLessThan(FLOOD_MAX);
  });

  it('refuses a JSON body (415) and a Content-Encoding (415)', async () => {
    const json = await upload(new TextEncoder().encode('{"a":1}'), 'application/json');
    expect([json.status, (await json.json()).error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const gz = await fetch(`${base}/api/upload`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }, body: new Uint8Array(4) });
    expect([gz.status, (await gz.json()).error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('publishes the body as application/octet-stream and refuses body + rawBody at boot', () => {
    const doc = buildOpenApi([def], new SchemaRegistry(), { version: '1', baseUrl: base }) as any;
    expect(doc.paths['/api/upload'].post.requestBody.content).toEqual({ 'application/octet-stream': { schema: { type: 'string', format: 'binary', maxLength: LIMIT } } });
    const body = { $id: 'test/raw-and-json.body', type: 'object' } as const satisfies RouteSchema;
    const both = { ...def, body } as typeof def;
    expect(() => buildRouter({ routes: [{ pluginId: 'files', def: both }], schemas: new SchemaRegistry(), authSchemes: new Map() })).toThrow(BootError);
  });
});
