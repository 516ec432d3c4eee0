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
 * `kill -9` of the Aerie process during heavy audit ingestion (PostgreSQL server only): after a
 * restart every acknowledged event is sealed exactly once and the chain verifies.
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
      const writer = async () => {
        for (let i = 0; !killed; i++) {
          try {
            const res = await post('/api/public/v1/audit/events', { events: Array.from({ length: 200 }, (_, j) => ({ eventType: 'app.crash.test', businessData: { i, j } })) }, apiKey);
            if (res.status === 202) acknowledged.push(...(res.body.ids as string[]));
          } catch {
            return; // connection refused or reset: the process is gone
          }
        }
      };
      const writers = [writer(), writer(), writer(), writer()];
      while (acknowledged.length < 4000) await new Promise((r) => setTimeout(r, 20));
      await first.kill('SIGKILL');
      killed = true;
      await Promise.all(writers);
    } finally {
      await first.kill('SIGKILL');
    }

    const knex = knexFactory({ client: 'pg', connection: db.url, ...knexSnakeCaseMappers() });
    const pendingAtCrash = Number((await knex('core.audit_outbox').count({ n: '*' }))[0].n);
    const sealedAtCrash = Number((await knex('core.audit_events').count({ n: '*' }))[0].n);
    // The crash must have caught work in flight: acknowledged events not yet sealed, and some sealed.
    console.log(`kill -9 with ${acknowledged.length} acknowledged, ${pendingAtCrash} in the outbox, ${sealedAtCrash} sealed`);
    expect(pendingAtCrash + sealedAtCrash).toBeGreaterThanOrEqual(acknowledged.length);
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
