/**
 * `core.jobs` on pg-boss (v10, the line that runs on Node 20) in the kernel's database, schema
 * `core_jobs`: on a PostgreSQL server pg-boss keeps its own small pool; on embedded PGlite it goes
 * through knex's pool (`core.db`'s `driverQuery`). pg-boss takes jobs with `FOR UPDATE SKIP LOCKED`, so
 * several Aerie processes share the queue and each job runs in one of them; a job whose process
 * dies is retried once `expireInSeconds` have passed.
 * @see docs/plugins.md "Background jobs (core.jobs)"
 */
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { JobDefinition, JobsService, ScheduleOptions, ScheduleTick, ScheduleTimes, SendJobOptions } from './jobs.types.ts';
import { transactionBossDb } from './pg-boss-db.ts';
import { cronOf } from './schedule-times.ts';
import { Schedules } from './schedules.ts';

const NAME = /^[a-z][a-z0-9-]*\.[A-Za-z0-9._-]{1,100}$/;
/** pg-boss's schema in the kernel database. */
export const JOBS_SCHEMA = 'core_jobs';

/**
 * Options of {@link PgBossJobs}: `databaseUrl` (a server; else PGlite through knex),
 * `pollingIntervalSeconds` (default 1), `maintenanceIntervalSeconds` — how often expired jobs are
 * found and retried, among other upkeep (default 60).
 */
export interface PgBossJobsOptions {
  databaseUrl?: string;
  pollingIntervalSeconds?: number;
  maintenanceIntervalSeconds?: number;
  /** How often a process looks for due schedule times (1–45, default 30; tests use 1). */
  cronMonitorIntervalSeconds?: number;
  /** false: this process turns no schedule times into jobs and catches none up (it still runs them). Default true. */
  scheduler?: boolean;
}

/** {@link JobsService} on pg-boss; `start()` after plugins have defined their jobs, `stop()` at shutdown. */
export class PgBossJobs implements JobsService {
  private readonly definitions = new Map<string, JobDefinition<any>>();
  private boss?: PgBoss;
  private starting?: Promise<PgBoss>;
  private readonly schedules: Schedules;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly options: PgBossJobsOptions = {},
  ) {
    this.schedules = new Schedules(db);
  }

  define<T>(definition: JobDefinition<T>): void {
    if (!NAME.test(definition.name)) throw new Error(`job name "${definition.name}" must look like "<pluginId>.<job>"`);
    const batch = definition.batchSize ?? 1;
    if (!Number.isInteger(batch) || batch < 1 || batch > 100) throw new Error(`job "${definition.name}": batchSize must be an integer from 1 to 100`);
    if (this.definitions.has(definition.name)) throw new Error(`job "${definition.name}" is already defined`);
    if (this.boss) throw new Error(`job "${definition.name}" defined after the kernel started its workers`);
    this.definitions.set(definition.name, definition);
  }

  schedule(name: string, times: ScheduleTimes, handler: (tick: ScheduleTick) => Promise<void>, options: ScheduleOptions = {}): void {
    const cron = cronOf(name, times);
    this.define(this.schedules.definition(name, handler, options));
    this.schedules.entries.set(name, { cron, catchUp: options.catchUp ?? false });
  }

  async runNow(name: string): Promise<string> {
    if (!this.schedules.entries.has(name)) throw new Error(`no schedule "${name}" is defined`);
    return (await this.send(name, {}))!;
  }

  async send<T>(name: string, data: T, options: SendJobOptions = {}): Promise<string | null> {
    if (!this.definitions.has(name)) throw new Error(`no job "${name}" is defined`);
    const boss = await this.ready();
    return boss.send(name, (data ?? {}) as object, {
      ...(options.trx ? { db: transactionBossDb(options.trx) } : {}),
      ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      // As a time: pg-boss binds a number of seconds to a timestamp parameter, which PostgreSQL refuses.
      ...(options.startAfterSeconds ? { startAfter: new Date(Date.now() + options.startAfterSeconds * 1000) } : {}),
    });
  }

  async state(name: string, id: string): Promise<string | null> {
    const job = await (await this.ready()).getJobById(name, id);
    return job?.state ?? null;
  }

  /**
   * Starts pg-boss (creating or migrating its schema), one worker per defined job, and the schedules:
   * each `catchUp` schedule whose last time passed unrun is queued now. Nothing runs when no plugin
   * defined a job, so a kernel without jobs pays nothing.
   */
  async start(): Promise<void> {
    if (this.definitions.size === 0) return;
    const boss = await this.ready();
    for (const name of this.options.scheduler === false ? [] : await this.schedules.dueCatchUps(new Date())) {
      this.logger.info({ schedule: name }, 'schedule missed its last time while no process ran: running it now');
      await boss.send(name, {});
    }
    for (const def of this.definitions.values()) {
      const options = { pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 1, batchSize: def.batchSize ?? 1, includeMetadata: true } as const;
      await boss.work<unknown>(def.name, options, async (jobs) => {
        // One job: its error fails it, as pg-boss does. A batch: each job that throws is failed (and
        // retried) on its own; pg-boss then completes the others (completion touches active jobs only).
        if (jobs.length === 1) return void (await def.handler({ id: jobs[0]!.id, data: jobs[0]!.data }));
        const failed = await runBatch(def, jobs);
        for (const { id, error } of failed) {
          await boss.fail(def.name, id, { message: error instanceof Error ? error.message : String(error) });
        }
      });
    }
  }

  /** Stops taking jobs and waits (up to 10 s) for running ones; never throws. */
  async stop(): Promise<void> {
    const boss = this.boss ?? (await this.starting?.catch(() => undefined));
    if (!boss) return;
    await boss.stop({ graceful: true, wait: true, timeout: 10_000 }).catch((err: unknown) => this.logger.error({ err }, 'stopping background jobs failed'));
  }

  private ready(): Promise<PgBoss> {
    this.starting ??= (async () => {
      const connection = this.options.databaseUrl ? { connectionString: this.options.databaseUrl, max: 4 } : { db: { executeSql: (text: string, values?: unknown[]) => this.db.driverQuery(text, values) } };
      const boss = new PgBoss({
        ...connection, schema: JOBS_SCHEMA, supervise: true, maintenanceIntervalSeconds: this.options.maintenanceIntervalSeconds ?? 60,
        schedule: this.schedules.entries.size > 0 && this.options.scheduler !== false, cronMonitorIntervalSeconds: this.options.cronMonitorIntervalSeconds ?? 30,
        cronWorkerIntervalSeconds: Math.min(5, this.options.cronMonitorIntervalSeconds ?? 5),
      } as PgBoss.ConstructorOptions);
      boss.on('error', (err) => this.logger.error({ err }, 'background jobs'));
      await boss.start();
      for (const def of this.definitions.values()) {
        await retryDeadlock(() => boss.createQueue(def.name, {
          name: def.name, retryLimit: def.retryLimit ?? 5, retryDelay: def.retryDelaySeconds ?? 10, retryBackoff: true, expireInSeconds: def.expireInSeconds ?? 900,
        }));
      }
      // Upserts: the schedule table is shared by every process and survives restarts.
      for (const [name, { cron }] of this.schedules.entries) await boss.schedule(name, cron, {}, { tz: 'UTC' });
      this.boss = boss;
      return boss;
    })();
    return this.starting;
  }
}

/**
 * Runs `step`, again (up to 5 times, after 50–250 ms) when PostgreSQL chose it as a deadlock victim:
 * processes starting together create the same queues, whose partitions lock pg-boss's job table.
 */
async function retryDeadlock(step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
    }
  }
}

/**
 * Runs a batch: jobs of different `orderKey`s at once, those of one key one after another in queue
 * order. @returns the jobs whose handler threw, with the error.
 */
async function runBatch(def: JobDefinition<any>, jobs: Array<{ id: string; data: unknown; createdOn: Date }>): Promise<Array<{ id: string; error: unknown }>> {
  const chains = new Map<string, Array<{ id: string; data: unknown }>>();
  // A fetched batch comes in no particular order: queue order is creation order.
  [...jobs].sort((a, b) => new Date(a.createdOn).getTime() - new Date(b.createdOn).getTime()).forEach((job, i) => {
    const key = def.orderKey ? def.orderKey(job.data) : String(i);
    chains.set(key, [...(chains.get(key) ?? []), job]);
  });
  const failed: Array<{ id: string; error: unknown }> = [];
  await Promise.all([...chains.values()].map(async (chain) => {
    for (const job of chain) {
      try {
        await def.handler({ id: job.id, data: job.data });
      } catch (error) {
        failed.push({ id: job.id, error });
      }
    }
  }));
  return failed;
}
