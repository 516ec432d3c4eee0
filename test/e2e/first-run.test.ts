import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lstatSync, readdirSync } from 'node:fs';
import { REPO_ROOT } from '../../core/kernel.ts';
import { freePort, startAerieProcess } from '../helpers/child-process.ts';
import { latestCode } from '../helpers/mail.ts';
import { createTestDatabase } from '../helpers/pg-databases.ts';

/** Paths under `dir` (itself included) that the group or others may read, write or enter. */
function loose(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if ((stat.mode & 0o077) !== 0) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

/**
 * Aerie on real input: `npm start` as a child process with a temporary data dir; a person registers,
 * reads the code from the `.eml` in the outbox, signs in, creates an organization; the process is
 * restarted and the organization is still there.
 */
describe('first run: npm start, register, create an organization, restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-e2e-'));
  let dropDb: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps what a person did across a restart', async () => {
    const env: Record<string, string> = { AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'info' };
    if (process.env.TEST_DATABASE_URL) {
      const db = await createTestDatabase(process.env.TEST_DATABASE_URL);
      env.DATABASE_URL = db.url;
      dropDb = db.drop;
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

    const first = await startAerieProcess(REPO_ROOT, env, port);
    try {
      expect((await post('/api/v1/users/registration/email', { email: 'Founder@Example.com', displayName: 'Founder' })).status).toBe(202);
      const code = latestCode(dataDir, 'founder@example.com');
      const verified = await post('/api/v1/users/verification/email', { email: 'founder@example.com', code });
      expect(verified.status).toBe(200);
      const { sessionToken } = (await verified.json()) as { sessionToken: string };
      const created = await post('/api/org/create', { name: 'Founders Inc', slug: 'founders', type: 'Corporation' }, sessionToken);
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ slug: 'founders', type: 'Corporation', role: 'Owner' });
      // npm forwards SIGTERM to Aerie, which drains and closes the database before exiting.
      const ended = await first.stop();
      expect(ended.signal === 'SIGTERM' || ended.code === 0).toBe(true);
      expect(first.output()).toContain('"msg":"shutting down"');
      // Not a terminal: one JSON object a line, the first saying where Aerie answers and keeps its data.
      const firstLine = JSON.parse(first.output().split('\n')[0]) as { msg: string };
      expect(firstLine.msg).toBe(`Aerie 0.1.0 at http://localhost:${port} (listening on 0.0.0.0:${port}); data in ${dataDir}, ${env.DATABASE_URL ? `PostgreSQL at ${new URL(env.DATABASE_URL).host}` : 'embedded PostgreSQL'}`);
      expect(first.output()).not.toContain('"level":50');
      // Sign-in codes, keys and the embedded database are the running user's alone.
      expect(loose(dataDir)).toEqual([]);

      // As on a terminal: readable lines.
      const second = await startAerieProcess(REPO_ROOT, { ...env, AERIE_LOG_FORMAT: 'pretty' }, port);
      try {
        const org = await fetch(`${base}/api/org/founders`, { headers: { authorization: `Bearer ${sessionToken}` } });
        expect(org.status).toBe(200);
        expect(await org.json()).toMatchObject({ name: 'Founders Inc', slug: 'founders', role: 'Owner' });
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(200);
        expect(second.output().split('\n')[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Aerie 0\.1\.0 at http:\/\/localhost:\d+ \(listening on 0\.0\.0\.0:\d+\); data in /);
      } finally {
        await second.stop();
      }
    } finally {
      if (first.child.exitCode === null) await first.stop();
    }
  }, 120_000);
});
