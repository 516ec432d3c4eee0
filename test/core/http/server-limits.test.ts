import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';

/** A raw client connection: what it wrote, what came back, and whether the server closed it. */
interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

function open(url: string): Promise<RawClient> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), '127.0.0.1', () => resolve({ socket, received: () => data, closed }));
    let data = '';
    socket.on('data', (chunk) => { data += chunk.toString('utf8'); });
    socket.on('error', () => { /* the server may reset a refused connection */ });
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - started)));
    socket.once('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

/**
 * The HTTP server's own limits (docs/api/errors.md "Limits of the HTTP server"): a client that sends
 * its headers or its request too slowly is answered 408, and one address holds a bounded number of
 * connections. Small values here so the test is quick; the defaults are 10 s, 120 s and 256.
 */
describe('HTTP server limits: header and request time-outs, connections per address', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start({ overrides: { 'http.headersTimeoutSeconds': 1, 'http.requestTimeoutSeconds': 5, 'http.maxConnectionsPerAddress': 4 } });
  });
  afterAll(() => aerie?.close());

  it('answers 408 REQUEST_TIMEOUT in the error envelope to headers that do not arrive in time (slowloris), and closes', async () => {
    const client = await open(aerie.url);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const after = await client.closed;
    expect(after).toBeGreaterThanOrEqual(900);
    expect(after).toBeLessThan(4000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(bodyOf(client.received())).toEqual({ error: 'REQUEST_TIMEOUT', message: expect.any(String) });
  });

  it('answers 408 to a body that trickles in past the request time-out', async () => {
    const client = await open(aerie.url);
    client.socket.write('POST /api/v1/users/registration/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":');
    const trickle = setInterval(() => client.socket.writable && client.socket.write(' '), 500);
    try {
      const after = await client.closed;
      expect(after).toBeGreaterThanOrEqual(4500);
      expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  }, 15_000);

  it('does not count the idle time of a keep-alive connection between requests', async () => {
    const client = await open(aerie.url);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 2500));
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(client.received().match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    client.socket.destroy();
  });

  it('refuses a connection past the cap for one address with 503 TOO_MANY_CONNECTIONS and Retry-After; a freed slot is usable again', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => open(aerie.url)));
    const extra = await open(aerie.url);
    await extra.closed;
    expect(extra.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(extra.received()).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(bodyOf(extra.received())).toEqual({ error: 'TOO_MANY_CONNECTIONS', message: expect.any(String) });
    // The held connections still work.
    held[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(held[0]!.received()).toMatch(/^HTTP\/1\.1 200 OK/);
    held[1]!.socket.destroy();
    await held[1]!.closed;
    await new Promise((r) => setTimeout(r, 100));
    const again = await fetch(`${aerie.url}/healthz`);
    expect(again.status).toBe(200);
    for (const c of held) c.socket.destroy();
  });
});
