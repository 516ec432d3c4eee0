import type { Knex } from 'knex';

/**
 * A kind of background job. `name` is `<pluginId>.<job>` (letters, digits, `.`, `-`, `_`).
 * `handler` runs once per job, with `{ id, data }`; it must be idempotent — a job whose process dies
 * mid-run runs again after `expireInSeconds` — and throws to ask for a retry.
 * Defaults: `retryLimit` 5, `retryDelaySeconds` 10 (doubling), `expireInSeconds` 900, `batchSize` 1.
 * @see docs/plugins.md "Background jobs (core.jobs)"
 */
export interface JobDefinition<T = unknown> {
  name: string;
  handler: (job: { id: string; data: T }) => Promise<void>;
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInSeconds?: number;
  /**
   * Jobs a worker takes per poll (1–100, default 1; a process polls each kind once a second), run at
   * once: each completes, or fails and is retried, on its own. For kinds that must keep up with bursts
   * (mail answering requests).
   */
  batchSize?: number;
  /** With `batchSize` above 1: jobs of one key run one after another, in queue order (creation time, to the millisecond; one sign-in's mails). */
  orderKey?: (data: T) => string;
}

/** Options of {@link JobsService.send}. */
export interface SendJobOptions {
  /** Queue the job in this transaction: it exists only if the transaction commits. */
  trx?: Knex.Transaction;
  /** At most one queued or running job per key for this kind. */
  singletonKey?: string;
  /** Run no earlier than this many seconds from now. */
  startAfterSeconds?: number;
}

/**
 * When a schedule runs, in UTC: a five-field cron expression (`'5 0 * * *'` is 00:05 every day), or
 * `{ everyMinutes }` — a divisor of 60, or a whole number of hours that divides 24 (`10` is
 * `*\/10 * * * *`, `360` is `0 *\/6 * * *`).
 */
export type ScheduleTimes = string | { everyMinutes: number };

/**
 * Options of {@link JobsService.schedule}: the retry options of {@link JobDefinition} (defaults
 * `retryLimit` 5, `retryDelaySeconds` 10 doubling, `expireInSeconds` 900), and `catchUp` — when
 * every process was down at the schedule's last time, run once as the first process starts
 * (default false: the next time comes soon enough for sweeps).
 */
export interface ScheduleOptions {
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInSeconds?: number;
  catchUp?: boolean;
}

/** One run of a schedule: `id` is its job id. */
export interface ScheduleTick {
  id: string;
}

/**
 * `core.jobs`: durable background jobs on the kernel's database (pg-boss), surviving restarts and
 * run by exactly one of several Aerie processes at a time.
 */
export interface JobsService {
  /**
   * Defines a kind of job; call during plugin `init`. Workers start when the kernel has booted.
   * @throws Error for a malformed or duplicate name.
   */
  define<T>(definition: JobDefinition<T>): void;
  /**
   * Queues a job of a defined kind. @returns the job id (UUID), or null when `singletonKey` already
   * has a job. @throws Error for a kind nobody defined.
   */
  send<T>(name: string, data: T, options?: SendJobOptions): Promise<string | null>;
  /**
   * Defines recurring work; call during plugin `init`. Each time comes once across every process on
   * the database (pg-boss's scheduler: one process turns the time into a job, one process runs it), and
   * schedules survive restarts; a run that throws is retried like a job. Times are wall-clock UTC, not
   * the kernel's `core.clock`: tests fire a run with {@link runNow}.
   * @throws Error for a malformed or duplicate name, or times that are neither a five-field cron
   *   expression nor a valid `everyMinutes`
   * @see docs/plugins.md "Schedules"
   */
  schedule(name: string, times: ScheduleTimes, handler: (tick: ScheduleTick) => Promise<void>, options?: ScheduleOptions): void;
  /**
   * Queues one run of a schedule now, outside its times (an operator catching up; a test on a manual
   * clock). @returns the job id, for {@link state}. @throws Error for a name no schedule has.
   */
  runNow(name: string): Promise<string>;
  /** A job's state (`created`, `retry`, `active`, `completed`, `cancelled`, `failed`) or null. */
  state(name: string, id: string): Promise<string | null>;
}
