import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../../core/kernel.ts';
import { freePort, startAerieProcess } from '../helpers/child-process.ts';
import { createTestDatabase } from '../helpers/pg-databases.ts';
import { latestCode } from '../helpers/mail.ts';
import { hasOpenssl, TlsReceiver } from '../helpers/tls-receiver.ts';

/**
 * `kill -9` of Aerie with webhook deliveries recorded (claimed): 4 requests in flight to a receiver
 * that holds them, 6 more claimed and queued behind them, not yet sent. After a restart none of the
 * 10 is sent (again) — at most once — all 10 are listed `unknown` once their claims have gone
 * without a heartbeat (`webhooks.interruptedAfterSeconds`, shortened here), and new events are
 * delivered as usual. A PostgreSQL server, so the test can watch the database while the process is gone.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL || !hasOpenssl)('webhooks: at most once across kill -9', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-webhooks-crash-'));
  let drop: (() => Promise<void>) | undefined;
  let receiver: TlsReceiver | undefined;
  afterAll(async () => {
    await receiver?.close();
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never sends a recorded delivery twice, nor one that was queued when the process died', async () => {
    let hold = true;
    receiver = await TlsReceiver.start((_q, res) => {
      if (!hold) res.writeHead(204).end();
    });
    const db = await createTestDatabase(process.env.TEST_DATABASE_URL!);
    drop = db.drop;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const env = { AERIE_DATA_DIR: dataDir, DATABASE_URL: db.url, AERIE_LOG_LEVEL: 'warn', AERIE_EGRESS_ALLOW_LOOPBACK: 'true', AERIE_EGRESS_CA_FILES: receiver.caFile, AERIE_WEBHOOKS_INTERRUPTED_AFTER: '5' };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: res.status === 204 ? undefined : ((await res.json()) as any) };
    };
    const rows = async () => (await client.query('select id, outcome from webhooks.deliveries order by event_seq')).rows as Array<{ id: string; outcome: string }>;
    // The attempts on record before any request leaves: each claimed chain position with its delivery id.
    const claimed = async () => (await client.query(
      `select 'msg_' || c.id || '_' || (u.n - 1) as id from webhooks.claims c, unnest(c.seqs) with ordinality as u(seq, n) order by u.seq`)).rows.map((r) => r.id as string);
    const until = async (what: () => Promise<boolean>, label: string) => {
      for (let i = 0; i < 300; i++) {
        if (await what()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${label}`);
    };
    try {
      const first = await startAerieProcess(REPO_ROOT, env, port);
      await call('POST', '/api/v1/users/registration/email', { email: 'owner@acme.test' });
      const { sessionToken: token } = (await call('POST', '/api/v1/users/verification/email', { email: 'owner@acme.test', code: latestCode(dataDir, 'owner@acme.test') })).body;
      expect((await call('POST', '/api/org/create', { name: 'Acme', slug: 'acme', type: 'Standard' }, token)).status).toBe(201);
      const ep = await call('POST', '/api/org/acme/webhook-endpoints', { url: receiver.url(), events: ['org.webhook.updated'] }, token);
      expect(ep.status).toBe(201);
      for (let i = 0; i < 10; i++) expect((await call('PUT', `/api/org/acme/webhook-endpoints/${ep.body.id}`, { description: `change ${i}` }, token)).status).toBe(200);
      await until(async () => (await claimed()).length === 10 && receiver!.received.length === 4, '10 claimed deliveries, 4 of them at the receiver');
      await first.kill('SIGKILL');
      const recorded = await claimed();
      expect(new Set(recorded).size).toBe(10);
      expect(await rows()).toEqual([]); // no outcome was known

      hold = false;
      const second = await startAerieProcess(REPO_ROOT, env, port);
      try {
        expect((await call('PUT', `/api/org/acme/webhook-endpoints/${ep.body.id}`, { description: 'after the restart' }, token)).status).toBe(200);
        const listed = async () => (await call('GET', `/api/org/acme/webhook-endpoints/${ep.body.id}/deliveries`, undefined, token)).body.deliveries as any[];
        await until(async () => (await listed()).filter((d) => d.outcome !== 'sending').length === 11, 'the delivery after the restart, and the 10 interrupted ones listed');
        await new Promise((r) => setTimeout(r, 1_500)); // two polls: time for a (wrong) re-send to show up
        const ids = receiver.received.map((r) => r.headers['webhook-id']);
        expect(ids).toHaveLength(5);
        expect(new Set(ids).size).toBe(5);
        expect(ids.slice(0, 4).every((id) => recorded.includes(String(id)))).toBe(true);
        const list = await listed();
        const interrupted = list.filter((d) => recorded.includes(d.id));
        expect(interrupted).toHaveLength(10);
        expect(interrupted.every((d) => d.outcome === 'unknown' && d.httpStatus === null && /not sent again/.test(d.detail))).toBe(true);
        expect(list.filter((d) => !recorded.includes(d.id))).toEqual([expect.objectContaining({ id: ids[4], outcome: 'succeeded', httpStatus: 204 })]);
        expect((await rows()).map((r) => r.outcome).sort()).toEqual([...Array(1).fill('succeeded'), ...Array(10).fill('unknown')]);
      } finally {
        await second.stop();
      }
    } finally {
      await client.end();
    }
  }, 180_000);
});
