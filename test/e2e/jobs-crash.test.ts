import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { REPO_ROOT } from '../../core/kernel.ts';
import { freePort, startAerieProcess } from '../helpers/child-process.ts';
import { createTestDatabase } from '../helpers/pg-databases.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/jobs-demo', import.meta.url));

/**
 * `kill -9` of Aerie while a background job runs (a PostgreSQL server, so the test can watch the
 * database while the process is gone): after a restart the job runs again once its lease expires
 * and completes exactly once — one run row, two attempts, state `completed`.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('core.jobs survives kill -9 mid-job', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-jobs-crash-'));
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the killed job to completion exactly once after restart', async () => {
    const db = await createTestDatabase(process.env.TEST_DATABASE_URL!);
    drop = db.drop;
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const env = { AERIE_DATA_DIR: dataDir, DATABASE_URL: db.url, AERIE_PLUGIN_PATHS: FIXTURE, AERIE_JOBS_MAINTENANCE_INTERVAL: '1', AERIE_LOG_LEVEL: 'warn' };
    const port = await freePort();
    const count = async (sql: string, values: unknown[]) => Number((await client.query(sql, values)).rows[0].n);
    try {
      const first = await startAerieProcess(REPO_ROOT, env, port);
      const res = await fetch(`http://127.0.0.1:${port}/api/jobs-demo/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label: 'crash', sleepMs: 30_000 }) });
      const { jobId } = (await res.json()) as { jobId: string };
      for (let i = 0; i < 200 && (await count('select count(*) as n from jobs_demo.attempts where job_id = $1', [jobId])) === 0; i++) await new Promise((r) => setTimeout(r, 100));
      await first.kill('SIGKILL');
      expect(await count('select count(*) as n from jobs_demo.runs where job_id = $1', [jobId])).toBe(0);

      const second = await startAerieProcess(REPO_ROOT, env, port);
      try {
        for (let i = 0; i < 300 && (await count('select count(*) as n from jobs_demo.runs where job_id = $1', [jobId])) === 0; i++) await new Promise((r) => setTimeout(r, 100));
        expect(await count('select count(*) as n from jobs_demo.runs where job_id = $1', [jobId])).toBe(1);
        expect(await count('select count(*) as n from jobs_demo.attempts where job_id = $1', [jobId])).toBe(2);
        for (let i = 0; i < 50 && (await client.query('select state from core_jobs.job where id = $1', [jobId])).rows[0]?.state !== 'completed'; i++) await new Promise((r) => setTimeout(r, 100));
        expect((await client.query('select state from core_jobs.job where id = $1', [jobId])).rows[0].state).toBe('completed');
      } finally {
        await second.stop();
      }
    } finally {
      await client.end();
    }
  }, 120_000);
});
