import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route } from '../../../core/http/route.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { delegate } from '../../../core/http/reply.ts';

/** Routes that hand their request to a mounted Node.js handler (`delegate`), as the OpenID provider does. */
describe('http: delegation to a mounted Node.js handler', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ url?: string; originalUrl?: string; body: string }> = [];
  const mounted = async (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push({ url: req.url, originalUrl: req.originalUrl, body });
    res.statusCode = req.url?.startsWith('/missing') ? 404 : 201;
    res.setHeader('content-type', 'text/plain');
    res.setHeader('cache-control', 'public, max-age=60');
    res.end(`mounted ${req.method} ${req.url}`);
  };
  const defs = [
    route({ method: 'POST', path: '/api/public/orgs/{slug}/oauth/token', auth: 'public', handler: ({ params }) => delegate(`/api/public/orgs/${params.slug}`, mounted) }),
    route({ method: 'GET', path: '/api/public/orgs/{slug}/missing', auth: 'public', handler: ({ params }) => delegate(`/api/public/orgs/${params.slug}`, mounted) }),
    route({ method: 'GET', path: '/api/public/orgs/{slug}/elsewhere', auth: 'public', handler: () => delegate('/api/other', mounted) }),
  ];

  beforeAll(async () => {
    server = createHttpApp(buildRouter({ routes: defs.map((def) => ({ pluginId: 'oidc', def })), schemas: new SchemaRegistry(), authSchemes: new Map() }), pino({ level: 'silent' })).listen(0, '127.0.0.1');
    await new Promise((ok) => server.once('listening', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('gives the handler the unread body, the path under the mount and the original URL; its answer stands', async () => {
    const res = await fetch(`${base}/api/public/orgs/acme/oauth/token?x=1`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.text()).toBe('mounted POST /oauth/token?x=1');
    expect(seen.at(-1)).toEqual({ url: '/oauth/token?x=1', originalUrl: '/api/public/orgs/acme/oauth/token?x=1', body: 'grant_type=refresh_token' });
  });

  it("keeps the mounted handler's own 404 instead of the kernel's envelope", async () => {
    const res = await fetch(`${base}/api/public/orgs/acme/missing`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('mounted GET /missing');
  });

  it('answers 500 for a mount path the request is not under (a route bug), handing nothing over', async () => {
    const before = seen.length;
    const res = await fetch(`${base}/api/public/orgs/acme/elsewhere`);
    expect(res.status).toBe(500);
    expect((await res.json()).error).toBe('INTERNAL_ERROR');
    expect(seen.length).toBe(before);
  });

  it('refuses a mount path that ends with a slash', () => {
    expect(() => delegate('/api/x/', mounted)).toThrow(/must start with/);
  });
});
