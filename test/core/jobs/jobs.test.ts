import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../../../core/kernel.ts';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { JobsService } from '../../../core/jobs/jobs.types.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/jobs-demo', import.meta.url));

/** Polls until `check` holds (jobs run in the background). */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('core.jobs: durable background jobs on the kernel database', () => {
  let aerie: TestAerie;
  let jobs: JobsService;
  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['jobs-demo'], env: { AERIE_PLUGIN_PATHS: FIXTURE } });
    jobs = aerie.kernel.container.resolve<JobsService>(coreRefs.jobs.id);
  });
  afterAll(() => aerie?.close());

  const run = (body: Record<string, unknown>) => aerie.request('POST', '/api/jobs-demo/jobs', { body });
  const runs = (label: string) => aerie.sql(`select job_id, label from jobs_demo.runs where label = ?`, [label]);

  it('runs a job queued with its transaction, once, and marks it completed', async () => {
    const res = await run({ label: 'once' });
    expect(res.status).toBe(202);
    await eventually(async () => (await jobs.state('jobs-demo.record', res.body.jobId)) === 'completed');
    expect(await runs('once')).toEqual([{ job_id: res.body.jobId, label: 'once' }]);
    expect(await aerie.sql(`select count(*)::int as n from jobs_demo.attempts where job_id = ?`, [res.body.jobId])).toEqual([{ n: 1 }]);
  });

  it('queues nothing when the transaction rolls back', async () => {
    const res = await run({ label: 'rolled', rollback: true });
    const jobId = String(res.body.jobId).replace('rolled-back:', '');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await jobs.state('jobs-demo.record', jobId)).toBeNull();
    expect(await aerie.sql(`select count(*)::int as n from jobs_demo.orders where label = 'rolled'`)).toEqual([{ n: 0 }]);
    expect(await runs('rolled')).toEqual([]);
  });

  it('retries a failing job and completes it once', async () => {
    const res = await run({ label: 'flaky', failTimes: 2 });
    await eventually(async () => (await jobs.state('jobs-demo.record', res.body.jobId)) === 'completed', 30_000);
    expect(await aerie.sql(`select count(*)::int as n from jobs_demo.attempts where job_id = ?`, [res.body.jobId])).toEqual([{ n: 3 }]);
    expect(await runs('flaky')).toHaveLength(1);
  }, 40_000);

  it('queues a delayed job to start that many seconds from now', async () => {
    const id = await jobs.send('jobs-demo.record', { label: 'later' }, { startAfterSeconds: 86_400 });
    expect(await jobs.state('jobs-demo.record', id!)).toBe('created');
    const [row] = await aerie.sql(`select extract(epoch from start_after - now())::int as s from core_jobs.job where id = ?`, [id]);
    expect(Math.abs(row.s - 86_400)).toBeLessThan(60);
  });

  it('runs the fixture\'s schedule when asked (docs/plugins.md "Schedules"), every 10 minutes in UTC', async () => {
    expect(await aerie.sql(`select cron from core_jobs.schedule where name = 'jobs-demo.tick'`)).toEqual([{ cron: '*/10 * * * *' }]);
    await aerie.runSchedule('jobs-demo.tick');
    expect((await runs('tick')).map((r) => r.label)).toEqual(['tick']);
  });

  it('refuses unknown and malformed job kinds', async () => {
    await expect(jobs.send('jobs-demo.nope', {})).rejects.toThrow(/no job "jobs-demo.nope"/);
    expect(() => jobs.define({ name: 'NoDot', handler: async () => undefined })).toThrow(/<pluginId>.<job>/);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('core.jobs across two Aerie processes sharing one PostgreSQL server', () => {
  it('runs each of 40 jobs exactly once', async () => {
    const a = await TestAerie.start({ plugins: ['jobs-demo'], env: { AERIE_PLUGIN_PATHS: FIXTURE } });
    const secondDir = mkdtempSync(join(tmpdir(), 'aerie-second-'));
    const b = await Kernel.boot({
      cwd: secondDir,
      env: {
        AERIE_DATA_DIR: secondDir, AERIE_LOG_LEVEL: 'silent', AERIE_PLUGIN_PATHS: FIXTURE, AERIE_PLUGINS: 'jobs-demo',
        DATABASE_URL: a.kernel.config.databaseUrl!, AERIE_MASTER_KEY: a.masterKey(),
      },
    });
    const bUrl = (await b.listen(0, '127.0.0.1')).url;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const url = i % 2 ? a.url : bUrl;
        const res = await fetch(`${url}/api/jobs-demo/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label: `shared-${i}`, sleepMs: 20 }) });
        ids.push(((await res.json()) as { jobId: string }).jobId);
      }
      await eventually(async () => (await a.sql(`select count(*)::int as n from jobs_demo.runs where label like 'shared-%'`))[0].n === 40, 60_000);
      const attempts = await a.sql(`select job_id, count(*)::int as n from jobs_demo.attempts where job_id = any(?::uuid[]) group by job_id`, [ids]);
      expect(attempts).toHaveLength(40);
      expect(attempts.every((r) => r.n === 1)).toBe(true);
    } finally {
      await b.close();
      rmSync(secondDir, { recursive: true, force: true });
      await a.close();
    }
  }, 90_000);
});
