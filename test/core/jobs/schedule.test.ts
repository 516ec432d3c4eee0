import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { TestAerie } from '../../helpers/harness.ts';
import { eventually } from '../../helpers/eventually.ts';
import { PgBossJobs } from '../../../core/jobs/pg-boss-jobs.ts';
import { cronOf, previousTime } from '../../../core/jobs/schedule-times.ts';

describe('schedule times', () => {
  it.each([
    ['5 0 * * *', '5 0 * * *'],
    ['  */10 * * * * ', '*/10 * * * *'],
    [{ everyMinutes: 1 }, '* * * * *'],
    [{ everyMinutes: 10 }, '*/10 * * * *'],
    [{ everyMinutes: 60 }, '0 */1 * * *'],
    [{ everyMinutes: 360 }, '0 */6 * * *'],
    [{ everyMinutes: 1440 }, '0 0 * * *'],
  ])('%j runs at %s (UTC)', (times, cron) => {
    expect(cronOf('demo.x', times)).toBe(cron);
  });

  it.each([
    ['0 0 0 * * *', /five-field/],
    ['5 0 * *', /five-field/],
    ['61 0 * * *', /not a cron expression/],
    ['every night', /five-field|not a cron/],
    [{ everyMinutes: 7 }, /everyMinutes/],
    [{ everyMinutes: 0 }, /everyMinutes/],
    [{ everyMinutes: 300 }, /everyMinutes/],
    [{ everyMinutes: 2880 }, /everyMinutes/],
    [{ everyMinutes: Number.NaN }, /everyMinutes/],
  ])('%j is refused', (times, message) => {
    expect(() => cronOf('demo.x', times)).toThrow(message);
  });

  it('the previous time counts a time exactly now', () => {
    const at = new Date('2026-11-28T00:05:00.000Z');
    expect(previousTime('5 0 * * *', at).toISOString()).toBe('2026-11-28T00:05:00.000Z');
    expect(previousTime('5 0 * * *', new Date(at.getTime() - 1)).toISOString()).toBe('2026-11-27T00:05:00.000Z');
  });
});

/**
 * `core.jobs` schedules: each time runs once across processes (two `PgBossJobs` on one database stand
 * for two Aerie processes), `runNow` fires a run, `core.job_schedules` records it, and a `catchUp`
 * schedule whose time passed while nothing ran runs at start.
 */
describe('core.jobs: schedules', () => {
  let aerie: TestAerie;
  const instances: PgBossJobs[] = [];
  const ranAt: Record<string, number[]> = {};
  const instance = (scheduler = true) => {
    const jobs = new PgBossJobs(aerie.kernel.db, pino({ level: 'silent' }), { pollingIntervalSeconds: 1, cronMonitorIntervalSeconds: 1, scheduler });
    instances.push(jobs);
    return jobs;
  };
  const record = (name: string) => async () => void (ranAt[name] ??= []).push(Date.now());
  const row = async (name: string) => (await aerie.sql(`select last_started_at, last_finished_at, last_error from core.job_schedules where name = ?`, [name]))[0];

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts'] });
  });
  afterAll(async () => {
    for (const jobs of instances) await jobs.stop();
    await aerie?.close();
  });

  // First: no process with a scheduler may be running yet (any scheduler times every schedule in the table).
  it('a process started with scheduler false (AERIE_JOBS_SCHEDULER=false) neither times schedules nor catches them up', async () => {
    await aerie.sql(`insert into core.job_schedules (name, last_started_at) values ('schedtest.quiet-catch-up', '2020-01-01T00:00:00Z')`);
    const jobs = instance(false);
    jobs.schedule('schedtest.quiet', '* * * * *', record('schedtest.quiet'));
    jobs.schedule('schedtest.quiet-catch-up', '0 0 1 1 *', record('schedtest.quiet-catch-up'), { catchUp: true });
    await jobs.start();
    await new Promise((r) => setTimeout(r, 3000));
    expect(ranAt['schedtest.quiet']).toBeUndefined();
    expect(ranAt['schedtest.quiet-catch-up']).toBeUndefined();
    await jobs.stop();
  });

  it('a schedule due every minute runs once a minute across two processes', async () => {
    const [a, b] = [instance(), instance()];
    for (const jobs of [a, b]) jobs.schedule('schedtest.minute', '* * * * *', record('schedtest.minute'));
    await Promise.all([a.start(), b.start()]);
    await eventually(async () => (ranAt['schedtest.minute']?.length ?? 0) > 0);
    await new Promise((r) => setTimeout(r, 4000));
    const minutes = ranAt['schedtest.minute']!.map((t) => Math.floor(t / 60_000));
    expect(new Set(minutes).size).toBe(minutes.length);
    expect((await row('schedtest.minute')).last_error).toBeNull();
  }, 30_000);

  it('runNow runs a schedule at once and records the run; a failing run records its error and is retried', async () => {
    const jobs = instance();
    let fail = true;
    jobs.schedule('schedtest.yearly', '0 0 1 1 *', record('schedtest.yearly'));
    jobs.schedule('schedtest.flaky', '0 0 1 1 *', async () => {
      if (fail) throw new Error('the store was away');
      (ranAt['schedtest.flaky'] ??= []).push(Date.now());
    }, { retryLimit: 2, retryDelaySeconds: 1 });
    await jobs.start();
    const before = (await row('schedtest.yearly')).last_started_at as Date;
    const id = await jobs.runNow('schedtest.yearly');
    await eventually(async () => (await jobs.state('schedtest.yearly', id)) === 'completed');
    expect(ranAt['schedtest.yearly']).toHaveLength(1);
    const after = await row('schedtest.yearly');
    expect(after.last_started_at.getTime()).toBeGreaterThan(before.getTime());
    expect(after.last_finished_at.getTime()).toBeGreaterThanOrEqual(after.last_started_at.getTime());

    const flaky = await jobs.runNow('schedtest.flaky');
    await eventually(async () => (await row('schedtest.flaky')).last_error === 'the store was away');
    expect((await row('schedtest.flaky')).last_finished_at).not.toBeNull();
    fail = false;
    await eventually(async () => (await jobs.state('schedtest.flaky', flaky)) === 'completed');
    expect(ranAt['schedtest.flaky']).toHaveLength(1);
    expect((await row('schedtest.flaky')).last_error).toBeNull();
  }, 30_000);

  it('at start, a catch-up schedule whose last time passed unrun runs once; others wait; a new one is recorded, not run', async () => {
    const longAgo = new Date('2020-01-01T00:00:00Z');
    for (const name of ['schedtest.catch-up', 'schedtest.no-catch-up']) {
      await aerie.sql(`insert into core.job_schedules (name, last_started_at) values (?, ?)`, [name, longAgo]);
    }
    const [a, b] = [instance(), instance()];
    for (const jobs of [a, b]) {
      jobs.schedule('schedtest.catch-up', '0 0 1 1 *', record('schedtest.catch-up'), { catchUp: true });
      jobs.schedule('schedtest.no-catch-up', '0 0 1 1 *', record('schedtest.no-catch-up'));
      jobs.schedule('schedtest.new', '0 0 1 1 *', record('schedtest.new'), { catchUp: true });
    }
    await Promise.all([a.start(), b.start()]);
    await eventually(async () => (ranAt['schedtest.catch-up']?.length ?? 0) > 0);
    await new Promise((r) => setTimeout(r, 2500));
    expect(ranAt['schedtest.catch-up']).toHaveLength(1);
    expect(ranAt['schedtest.no-catch-up']).toBeUndefined();
    expect(ranAt['schedtest.new']).toBeUndefined();
    expect((await row('schedtest.no-catch-up')).last_started_at).toEqual(longAgo);
    expect((await row('schedtest.new')).last_started_at.getTime()).toBeGreaterThan(longAgo.getTime());
  }, 30_000);

  it('refuses malformed names and times, a name defined twice, and runNow of a plain job', async () => {
    const jobs = instance();
    expect(() => jobs.schedule('NoDot', '* * * * *', async () => {})).toThrow(/<pluginId>.<job>/);
    expect(() => jobs.schedule('schedtest.bad', '* * *', async () => {})).toThrow(/five-field/);
    jobs.schedule('schedtest.twice', '* * * * *', async () => {});
    expect(() => jobs.schedule('schedtest.twice', '* * * * *', async () => {})).toThrow(/already defined/);
    jobs.define({ name: 'schedtest.plain', handler: async () => {} });
    await expect(jobs.runNow('schedtest.plain')).rejects.toThrow(/no schedule "schedtest.plain"/);
  });
});
