import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createHash } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route } from '../../../core/http/route.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { buildOpenApi } from '../../../core/http/openapi.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';
import { aerieError } from '../../../core/errors.ts';

const STOP_AFTER = 64 * 1024;
const FORM = { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } as const;

/** Routes with `streamBody`: the handler reads the body itself; what it leaves unread closes the connection. */
describe('http: streamed request bodies (streamBody)', () => {
  let server: Server;
  let base: string;
  let port: number;
  const def = route({
    method: 'POST', path: '/api/stream', auth: 'public', streamBody: { contentType: 'multipart/form-data', schema: FORM },
    handler: async ({ bodyStream }) => {
      expectTypeOf(bodyStream).toEqualTypeOf<Readable>();
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of bodyStream) {
        size += (chunk as Buffer).length;
        if (size > STOP_AFTER) throw aerieError('PAYLOAD_TOO_LARGE', 'Too long.', { limitBytes: STOP_AFTER });
        hash.update(chunk as Buffer);
      }
      return { size, sha256: hash.digest('hex') };
    },
  });

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: [{ pluginId: 'files', def }], schemas: new SchemaRegistry(), authSchemes: new Map() }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('hands the unread body to the handler, which streams it', async () => {
    const bytes = new Uint8Array(STOP_AFTER).map((_, i) => (i * 7) % 256);
    const res = await fetch(`${base}/api/stream`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: bytes });
    expect(await res.json()).toEqual({ size: STOP_AFTER, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(res.headers.get('connection')).not.toBe('close');
  });

  /** Sends `total` bytes chunked; answers the status and Connection header, or `reset` when the server cut the connection. */
  const sendChunked = (total: number) => new Promise<{ status?: number; connection?: string; reset?: true; sent: number }>((resolve) => {
    let sent = 0;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/stream', headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, sent }));
    });
    req.on('error', () => resolve({ reset: true, sent }));
    const chunk = Buffer.alloc(16 * 1024);
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });

  it('reads and drops what the handler left unread, answers, and closes the connection', async () => {
    const answer = await sendChunked(8 * 1024 * 1024);
    expect(answer).toMatchObject({ status: 413, connection: 'close' });
  });

  it('cuts off a sender that goes on past 16 MiB unread, without reading it all', async () => {
    const MAX = 256 * 1024 * 1024;
    const answer = await sendChunked(MAX);
    expect(answer.reset ?? answer.connection === 'close').toBe(true);
    expect(answer.sent).toBeLessThan(MAX);
  });

  it('publishes the form under its media type and refuses streamBody beside another body at boot', () => {
    const doc = buildOpenApi([def], new SchemaRegistry(), { version: '1', baseUrl: base }) as any;
    expect(doc.paths['/api/stream'].post.requestBody.content).toEqual({ 'multipart/form-data': { schema: FORM } });
    const both = { ...def, rawBody: { maxBytes: 1 } } as typeof def;
    expect(() => buildRouter({ routes: [{ pluginId: 'files', def: both }], schemas: new SchemaRegistry(), authSchemes: new Map() })).toThrow(BootError);
  });
});
