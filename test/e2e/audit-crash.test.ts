import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { knexSnakeCaseMappers } from 'objection';
import { REPO_ROOT } from '../../core/kernel.ts';
import { readChain } from '../../core/audit/read-chain.ts';
import { verifyRecords } from '../../core/audit/chain/index.ts';
import { freePort, startAerieProcess } from '../helpers/child-process.ts';
import { latestCode } from '../helpers/mail.ts';
import { createTestDatabase } from '../helpers/pg-databases.ts';

/**
 * `kill -9` of the Aerie process during heavy audit ingestion (PostgreSQL server only): ingestion
 * answers only once sealed, so at the crash every acknowledged event is already sealed, every
 * request's batch is sealed whole or not at all, and after a restart the chain verifies.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('audit: kill -9 during ingestion', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-crash-'));
  let dropDb: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('seals every acknowledged event exactly once after a crash and restart', async () => {
    const db = await createTestDatabase(process.env.TEST_DATABASE_URL!);
    dropDb = db.drop;
    const env = { AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'warn', DATABASE_URL: db.url, AERIE_PLUGINS: 'accounts,orgs,keys,audit' };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
    };

    const first = await startAerieProcess(REPO_ROOT, env, port);
    const acknowledged: string[] = [];
    let orgId = '';
    try {
      await post('/api/v1/users/registration/email', { email: 'owner@example.com' });
      const { body: session } = await post('/api/v1/users/verification/email', { email: 'owner@example.com', code: latestCode(dataDir, 'owner@example.com') });
      const auth = { authorization: `Bearer ${session.sessionToken}` };
      const org = await post('/api/org/create', { name: 'Crash', slug: 'crash' }, auth);
      orgId = org.body.id;
      const key = await post('/api/org/crash/settings/keys/api-keys', { name: 'ingest' }, auth);
      expect(key.status).toBe(201);
      const apiKey = { 'x-api-key': key.body.apiKey as string };
      // Four concurrent writers send batches of 200 until the process dies under them.
      let killed = false;
      const writer = async (w: number) => {
        for (let i = 0; !killed; i++) {
          try {
            const res = await post('/api/public/v1/audit/events', { events: Array.from({ length: 200 }, (_, j) => ({ eventType: 'app.crash.test', businessData: { w, i, j } })) }, apiKey);
            if (res.status === 201) acknowledged.push(...(res.body.ids as string[]));
          } catch {
            return; // connection refused or reset: the process is gone
          }
        }
      };
      const writers = [writer(0), writer(1), writer(2), writer(3)];
      while (acknowledged.length < 4000) await new Promise((r) => setTimeout(r, 20));
      await first.kill('SIGKILL');
      killed = true;
      await Promise.all(writers);
    } finally {
      await first.kill('SIGKILL');
    }

    const knex = knexFactory({ client: 'pg', connection: db.url, ...knexSnakeCaseMappers() });
    // Acknowledged means sealed: before any restart, every acknowledged event is on the chain.
    const sealedAtCrash = new Set((await knex('core.audit_events').where({ orgId, eventType: 'app.crash.test' }).select('id')).map((r) => r.id as string));
    console.log(`kill -9 with ${acknowledged.length} acknowledged, ${sealedAtCrash.size} sealed`);
    expect(acknowledged.filter((id) => !sealedAtCrash.has(id))).toEqual([]);
    expect(Number((await knex('core.audit_outbox').where({ eventType: 'app.crash.test' }).count({ n: '*' }))[0].n)).toBe(0);
    // Nothing half-sealed: each request's 200 events are all there or none (an unacknowledged request may have committed).
    const perRequest = await knex.raw(`select business_data->>'w' as w, business_data->>'i' as i, count(*)::int as n from core.audit_events
      where org_id = ? and event_type = 'app.crash.test' group by 1, 2 having count(*) <> 200`, [orgId]);
    expect(perRequest.rows).toEqual([]);
    const second = await startAerieProcess(REPO_ROOT, env, port);
    try {
      await expect.poll(async () => Number((await knex('core.audit_outbox').count({ n: '*' }))[0].n), { timeout: 60_000, interval: 250 }).toBe(0);
      const chain = await readChain(knex, orgId);
      const sealedIds = chain.map((r) => r.id);
      expect(new Set(sealedIds).size).toBe(sealedIds.length);
      const sealed = new Set(sealedIds);
      expect(acknowledged.filter((id) => !sealed.has(id))).toEqual([]);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: chain.length }, (_, i) => i + 1));
      expect(verifyRecords(chain).ok).toBe(true);
    } finally {
      await knex.destroy();
      await second.stop();
    }
  }, 180_000);
});
