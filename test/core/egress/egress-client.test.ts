import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressClient, EgressError } from '../../../core/egress/index.ts';
import { hasOpenssl, TlsReceiver } from '../../helpers/tls-receiver.ts';

/** A fake DNS: the true external boundary. Names not listed do not resolve. */
const names: Record<string, string[]> = {
  'localhost': ['127.0.0.1'],
  'internal.example': ['10.0.0.5'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.215.14', '192.168.0.10'],
  'public.example': ['93.184.215.14'],
};
const resolve = async (host: string) => {
  const found = names[host.toLowerCase()];
  if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return found;
};

async function refusal(promise: Promise<unknown>): Promise<{ failureClass: string; detail: string; addressKind?: string }> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(EgressError);
  const { failureClass, detail, addressKind } = error as EgressError;
  return { failureClass, detail, ...(addressKind ? { addressKind } : {}) };
}

describe('core.egress: registration checks', () => {
  const egress = new EgressClient({ resolve });
  afterAll(() => egress.close());

  // Every spelling of a loopback, private, link-local or metadata target, after URL normalisation.
  const blocked: Array<[string, string]> = [
    ['https://127.0.0.1/', 'loopback'], ['https://127.1/', 'loopback'], ['https://2130706433/', 'loopback'],
    ['https://0x7f000001/', 'loopback'], ['https://0x7f.0.0.1/', 'loopback'], ['https://017700000001/', 'loopback'], ['https://0177.0.0.1/', 'loopback'],
    ['https://127.0.0.1./', 'loopback'], ['https://%31%32%37.0.0.1/', 'loopback'], ['https://[::1]/', 'loopback'],
    ['https://[::ffff:127.0.0.1]/', 'loopback'], ['https://[0:0:0:0:0:ffff:7f00:1]/', 'loopback'], ['https://[::127.0.0.1]/', 'loopback'],
    ['https://[64:ff9b::7f00:1]/', 'loopback'], ['https://[2002:7f00:1::]/', 'loopback'],
    ['https://localhost/', 'loopback'], ['https://LOCALHOST./', 'loopback'],
    ['https://10.1.2.3/', 'private'], ['https://192.168.0.1:8443/x', 'private'], ['https://internal.example/', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'], ['https://[::ffff:a9fe:a9fe]/', 'metadata'], ['https://metadata.example/', 'metadata'],
    ['https://[fe80::1]/', 'link_local'], ['https://[fd00::1]/', 'unique_local'], ['https://100.64.1.1/', 'carrier_grade_nat'],
    ['https://0.0.0.0/', 'unspecified'], ['https://mixed.example/', 'private'],
  ];
  it.each(blocked)('%s is refused (%s)', async (url, reason) => {
    const r = await refusal(egress.checkUrl(url));
    expect(r.failureClass).toBe('blocked');
    expect(r.addressKind).toBe(reason);
    // What a client is told names no kind of address: only that it is refused.
    expect(r.detail).toMatch(/^the address of \S+ is refused$/);
  });

  it.each([
    ['http://public.example/', 'only https'], ['ftp://public.example/', 'only https'], ['not a url', 'not an absolute URL'],
    ['https://user:pw@public.example/', 'credentials'], ['https://public.example@127.0.0.1/', 'credentials'], ['https://public.example/#x', 'fragment'],
  ])('%s is not a URL Aerie sends to', async (url, detail) => {
    const r = await refusal(egress.checkUrl(url));
    expect(r.failureClass).toBe('invalid_url');
    expect(r.detail).toContain(detail);
  });

  it('an unknown name is a dns failure; a public one passes, normalised', async () => {
    expect((await refusal(egress.checkUrl('https://nowhere.example/'))).failureClass).toBe('dns');
    await expect(egress.checkUrl('https://PUBLIC.example./hook?a=1')).resolves.toBe('https://public.example/hook?a=1');
  });
});

describe.skipIf(!hasOpenssl)('core.egress: sending (local HTTPS receiver, needs openssl)', () => {
  let receiver: TlsReceiver;
  let open: EgressClient;
  let guarded: EgressClient;
  beforeAll(async () => {
    receiver = await TlsReceiver.start();
    open = new EgressClient({ resolve, allowLoopback: true, caFiles: [receiver.caFile] });
    guarded = new EgressClient({ resolve, caFiles: [receiver.caFile] });
  });
  afterAll(async () => {
    await Promise.all([open.close(), guarded.close()]);
    await receiver.close();
  });

  it('posts through the pinned address with the host name verified by TLS', async () => {
    receiver.handler = (_q, res) => res.writeHead(204).end();
    const res = await open.post(receiver.url(), { headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 5_000 });
    expect(res.status).toBe(204);
    expect(receiver.received.at(-1)).toMatchObject({ method: 'POST', url: '/hook', body: '{"a":1}' });
    expect(receiver.received.at(-1)!.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it('refuses the same receiver at send time without the loopback switch; nothing reaches it', async () => {
    const before = receiver.received.length;
    const r = await refusal(guarded.post(receiver.url(), { headers: {}, body: 'x', timeoutMs: 5_000 }));
    expect(r).toEqual({ failureClass: 'blocked', detail: 'the address of localhost is refused', addressKind: 'loopback' });
    const literal = await refusal(guarded.post(`https://127.0.0.1:${receiver.port}/`, { headers: {}, body: 'x', timeoutMs: 5_000 }));
    expect(literal.failureClass).toBe('blocked');
    expect(receiver.received.length).toBe(before);
  });

  it('does not follow a redirect (to a metadata address): the 302 is the answer', async () => {
    receiver.handler = (_q, res) => res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end();
    const before = receiver.received.length;
    const res = await open.post(receiver.url('/redirect'), { headers: {}, body: 'x', timeoutMs: 5_000 });
    expect(res.status).toBe(302);
    expect(receiver.received.length).toBe(before + 1);
  });

  it('cuts a receiver that hangs at the time-out', async () => {
    receiver.handler = () => undefined; // never answers
    const started = Date.now();
    const r = await refusal(open.post(receiver.url('/hang'), { headers: {}, body: 'x', timeoutMs: 300 }));
    expect(r.failureClass).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps the response body it reads', async () => {
    receiver.handler = (_q, res) => res.end('y'.repeat(1_000_000));
    const res = await open.get(receiver.url('/big'), { headers: {}, timeoutMs: 5_000, maxResponseBytes: 1024 });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(1024);
    expect(res.body.toString()).toBe('y'.repeat(1024));
    // The connection cut after the cap is not reused: the next requests are answered in full.
    receiver.handler = (_q, res) => res.end('small');
    const next = await Promise.all([1, 2, 3].map(() => open.get(receiver.url('/after-big'), { headers: {}, timeoutMs: 5_000, maxResponseBytes: 1024 })));
    expect(next.map((r) => [r.status, r.body.toString()])).toEqual([[200, 'small'], [200, 'small'], [200, 'small']]);
  });

  it('the time-out also ends a receiver that answers its headers and then stalls the body', async () => {
    receiver.handler = (_q, res) => {
      res.writeHead(200, { 'content-length': '10' });
      res.write('12345'); // and never the rest
    };
    const r = await refusal(open.get(receiver.url('/stall'), { headers: {}, timeoutMs: 300 }));
    expect(r.failureClass).toBe('timeout');
  });

  it('answers the response headers, names lower-case, a repeated header as an array', async () => {
    receiver.handler = (_q, res) => res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1', 'b=2'] }).end('{}');
    const res = await open.get(receiver.url('/headers'), { headers: {}, timeoutMs: 5_000 });
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('fetch(): a WHATWG Response over the guarded client (form body posted, headers and capped body answered)', async () => {
    receiver.handler = (q, res) => res.writeHead(201, { 'content-type': 'application/json', 'x-echo': q.headers['x-test'] as string }).end(JSON.stringify({ got: q.body }));
    const fetch = open.fetch({ timeoutMs: 5_000 });
    const res = await fetch(receiver.url('/token'), { method: 'POST', headers: new Headers({ 'x-test': 'yes', 'content-type': 'application/x-www-form-urlencoded' }), body: new URLSearchParams({ code: 'abc', x: 'y z' }) });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ got: 'code=abc&x=y+z' });
    expect(receiver.received.at(-1)).toMatchObject({ method: 'POST', url: '/token' });
    receiver.handler = (_q, res) => res.writeHead(204).end();
    expect((await fetch(receiver.url('/empty'))).status).toBe(204);
    const capped = open.fetch({ timeoutMs: 5_000, maxResponseBytes: 10 });
    receiver.handler = (_q, res) => res.end('z'.repeat(100));
    expect(await (await capped(receiver.url('/big'))).text()).toBe('z'.repeat(10));
  });

  it('fetch(): the same guard — a loopback target without the switch, http, and other methods are refused', async () => {
    const before = receiver.received.length;
    const guardedFetch = guarded.fetch({ timeoutMs: 5_000 });
    expect((await refusal(guardedFetch(receiver.url('/x')))).failureClass).toBe('blocked');
    expect((await refusal(guardedFetch(`http://localhost:${receiver.port}/x`))).failureClass).toBe('invalid_url');
    expect((await refusal(open.fetch({ timeoutMs: 5_000 })(receiver.url('/x'), { method: 'DELETE' }))).failureClass).toBe('invalid_url');
    expect(receiver.received.length).toBe(before);
  });

  it('refuses a certificate it does not trust', async () => {
    const untrusting = new EgressClient({ resolve, allowLoopback: true });
    try {
      receiver.handler = (_q, res) => res.end('ok');
      expect((await refusal(untrusting.post(receiver.url(), { headers: {}, body: 'x', timeoutMs: 5_000 }))).failureClass).toBe('tls');
    } finally {
      await untrusting.close();
    }
  });

  it('settles every one of many concurrent requests that fail to connect (none waits in a pool forever)', async () => {
    const untrusting = new EgressClient({ resolve, allowLoopback: true });
    try {
      const results = await Promise.all(Array.from({ length: 60 }, () => refusal(untrusting.post(receiver.url(), { headers: {}, body: 'x', timeoutMs: 3_000 }))));
      expect(new Set(results.map((r) => r.failureClass))).toEqual(new Set(['tls']));
    } finally {
      await untrusting.close();
    }
  });

  it('a closed port is a connection failure', async () => {
    const r = await refusal(open.post('https://localhost:1/', { headers: {}, body: 'x', timeoutMs: 5_000 }));
    expect(r.failureClass).toBe('connection');
  });
});
