import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { TestAerie } from '../../helpers/harness.ts';
import { PgBossJobs } from '../../../core/jobs/pg-boss-jobs.ts';

interface Mail {
  key: string;
  n: number;
  fail?: boolean;
}

/** Polls until `check` holds. */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * `core.jobs` kinds with `batchSize`: a burst is taken many jobs per poll and run at once, each job
 * completing or failing (and being retried) on its own, jobs of one `orderKey` one after another.
 */
describe('core.jobs: batches', () => {
  let aerie: TestAerie;
  let jobs: PgBossJobs;
  const ran: Array<{ key: string; n: number; start: number; end: number }> = [];

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'] });
    jobs = new PgBossJobs(aerie.kernel.db, pino({ level: 'silent' }), { pollingIntervalSeconds: 1 });
    jobs.define<Mail>({
      name: 'batchtest.mail', batchSize: 20, retryLimit: 2, retryDelaySeconds: 1, orderKey: (data) => data.key,
      handler: async ({ data }) => {
        const start = performance.now();
        await new Promise((r) => setTimeout(r, 100));
        if (data.fail) throw new Error(`mail ${data.key}/${data.n} refused`);
        ran.push({ key: data.key, n: data.n, start, end: performance.now() });
      },
    });
    await jobs.start();
  });
  afterAll(async () => {
    await jobs?.stop();
    await aerie?.close();
  });

  it('refuses a batch size outside 1–100', () => {
    expect(() => jobs.define({ name: 'batchtest.huge', batchSize: 101, handler: async () => {} })).toThrow(/batchSize/);
  });

  it('runs a burst of 40 jobs in a few polls, at once; one key\'s jobs one after another in queue order; a failing job fails alone', async () => {
    const ids: Record<string, string> = {};
    for (let n = 0; n < 40; n++) {
      const key = n < 10 ? 'ordered' : `k${n}`;
      ids[`${key}/${n}`] = (await jobs.send<Mail>('batchtest.mail', { key, n, fail: n === 25 }))!;
      // Queue order is creation time, to the millisecond.
      await new Promise((r) => setTimeout(r, 2));
    }
    const started = performance.now();
    await eventually(async () => ran.length >= 39);
    const elapsed = performance.now() - started;
    // One job a poll (the old default) would need 40 seconds; two or three polls of 20 need a few.
    expect(elapsed).toBeLessThan(15_000);
    const ordered = ran.filter((r) => r.key === 'ordered');
    expect(ordered.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.start).toBeGreaterThanOrEqual(ordered[i - 1]!.end);
    // The others of a batch overlap.
    const others = ran.filter((r) => r.key !== 'ordered');
    expect(others.some((a) => others.some((b) => a !== b && a.start < b.end && b.start < a.end))).toBe(true);
    expect(await jobs.state('batchtest.mail', ids['k10/10']!)).toBe('completed');
    await eventually(async () => ['retry', 'failed'].includes((await jobs.state('batchtest.mail', ids['k25/25']!)) ?? ''));
    const [row] = await aerie.sql("select output from core_jobs.job where id = ?", [ids['k25/25']]);
    expect(row.output).toMatchObject({ message: 'mail k25/25 refused' });
  });
});
