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
  /** A job's state (`created`, `retry`, `active`, `completed`, `cancelled`, `failed`) or null. */
  state(name: string, id: string): Promise<string | null>;
}
