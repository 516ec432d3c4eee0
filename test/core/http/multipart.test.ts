import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { chunkedFlood, FLOOD_MAX } from '../../helpers/chunked-flood.ts';
import { createHash } from 'node:crypto';
import { request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { answerClientError } from '../../../core/http/client-error.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route, type UploadedFile } from '../../../core/http/route.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { buildOpenApi } from '../../../core/http/openapi.ts';

const LIMIT = 64 * 1024;

/** Routes with `upload`: the handler gets the file part as a stream that fails past the limit. */
describe('http: multipart uploads (upload)', () => {
  let server: Server;
  let base: string;
  let port: number;
  /** How the last upload the handler read ended: its size, or the error its stream failed with. */
  let lastRead: Promise<number> | undefined;
  const def = route({
    method: 'POST', path: '/api/files', auth: 'public', upload: { field: 'file', maxBytes: LIMIT },
    handler: async ({ upload }) => {
      expectTypeOf(upload).toEqualTypeOf<UploadedFile>();
      const hash = createHash('sha256');
      let size = 0;
      lastRead = (async () => {
        for await (const chunk of upload.stream) {
          size += chunk.length;
          hash.update(chunk);
        }
        return size;
      })();
      await lastRead;
      return { fileName: upload.fileName, contentType: upload.contentType, size, sha256: hash.digest('hex') };
    },
  });

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: [{ pluginId: 'files', def }], schemas: new SchemaRegistry(), authSchemes: new Map() }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    // As the kernel's server does: a request cut off mid-body is a client error, not a crash.
    server.on('clientError', answerClientError);
    await new Promise((ok) => server.once('listening', ok));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  const send = (form: FormData) => fetch(`${base}/api/files`, { method: 'POST', body: form });
  const withFile = (bytes: Uint8Array<ArrayBuffer>, field = 'file') => {
    const form = new FormData();
    form.append('note', 'skipped');
    form.append(field, new Blob([bytes], { type: 'application/pdf' }), 'report.pdf');
    return form;
  };

  it('streams the file part to the handler with its name and type, other parts skipped', async () => {
    const bytes = new Uint8Array(LIMIT).map((_, i) => (i * 7) % 256);
    const res = await send(withFile(bytes));
    expect(await res.json()).toEqual({ fileName: 'report.pdf', contentType: 'application/pdf', size: LIMIT, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('fails the stream one byte past the limit: 413 PAYLOAD_TOO_LARGE with limitBytes', async () => {
    const res = await send(withFile(new Uint8Array(LIMIT + 1)));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', limitBytes: LIMIT });
  });

  it('answers a chunked upload past the limit with 413 before the client has sent it all', async () => {
    const answer = await chunkedFlood(port, '/api/files', 'multipart/form-data; boundary=XyZ',
      '--XyZ\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\ncontent-type: application/octet-stream\r\n\r\n');
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', limitBytes: LIMIT });
    expect(answer.sent).toBeLessThan(FLOOD_MAX);
  });

  it('answers at once and drops the rest of a refused upload, closing after it; a sender that goes on past 16 MiB more is cut off', async () => {
    /** On a raw socket, sends `total` bytes of the part whatever the answer; answers what came back and whether the connection was reset. */
    const sendAll = (total: number) => new Promise<{ answer: string; sent: number; reset: boolean }>((resolve) => {
      let sent = 0;
      let answer = '';
      let reset = false;
      const socket = connect(port, '127.0.0.1');
      socket.on('data', (c) => (answer += c));
      socket.on('error', () => (reset = true));
      socket.on('close', () => resolve({ answer, sent, reset }));
      socket.write('POST /api/files HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = (data: string | Buffer) => Buffer.concat([Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`), Buffer.from(data), Buffer.from('\r\n')]);
      socket.write(chunk('--XyZ\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n\r\n'));
      const zeros = chunk(Buffer.alloc(64 * 1024));
      const pump = () => {
        while (sent < total && !socket.destroyed) {
          sent += 64 * 1024;
          if (!socket.write(zeros)) return void socket.once('drain', pump);
        }
        if (!socket.destroyed) socket.write('0\r\n\r\n');
      };
      pump();
    });
    const drained = await sendAll(8 * 1024 * 1024);
    expect(drained).toMatchObject({ sent: 8 * 1024 * 1024, reset: false });
    expect(drained.answer).toMatch(/^HTTP\/1.1 413 [^]*connection: close[^]*"PAYLOAD_TOO_LARGE"/i);
    const flood = await sendAll(256 * 1024 * 1024);
    expect(flood.answer).toMatch(/^HTTP\/1.1 413 /);
    expect(flood.sent).toBeLessThan(256 * 1024 * 1024);
  });

  it("fails the handler's stream when the client goes away mid-upload, instead of leaving it waiting", async () => {
    lastRead = undefined;
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/files', headers: { 'content-type': 'multipart/form-data; boundary=XyZ', 'transfer-encoding': 'chunked' } });
    req.on('error', () => undefined);
    req.write('--XyZ\r\ncontent-disposition: form-data; name="file"; filename="half.bin"\r\n\r\n');
    req.write(Buffer.alloc(1024));
    await expect.poll(() => lastRead !== undefined).toBe(true);
    req.destroy();
    await expect(lastRead).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('answers 400 MULTIPART_INVALID for a body that is not multipart, is malformed, or lacks the part', async () => {
    const json = await fetch(`${base}/api/files`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const octets = await fetch(`${base}/api/files`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'abc' });
    const noBoundary = await fetch(`${base}/api/files`, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'abc' });
    const missing = await send(withFile(new Uint8Array(10), 'other'));
    for (const res of [json, octets, noBoundary, missing]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'MULTIPART_INVALID', field: 'file' });
    }
  });

  it('publishes the route as multipart/form-data with the file part and its limit', () => {
    const doc = buildOpenApi([def], new SchemaRegistry(), { version: '1', baseUrl: base }) as any;
    expect(doc.paths['/api/files'].post.requestBody.content['multipart/form-data'].schema).toEqual({
      type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', maxLength: LIMIT } },
    });
  });
});
