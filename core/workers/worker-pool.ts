import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { taskModuleHref } from './task-module.ts';
import { WorkerTaskError, type RunOptions, type TaskFunction, type WorkerTask, type Workers } from './workers.types.ts';

/** The one worker bootstrap every thread runs (plain ESM). */
const BOOTSTRAP = fileURLToPath(new URL('./worker.mjs', import.meta.url));

/** `<owner>.<task>`: lower-case kebab segments, two or more, dotted. */
const TASK_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** What the bootstrap receives: the module to load (a `file:` href) and the task's input. */
interface TaskMessage {
  module: string;
  input: unknown;
}

/**
 * `core.workers` (see {@link Workers}): one piscina pool over `./worker.mjs`, created on the first
 * `run` or `warm` with all of its `maxThreads` threads (kept until {@link WorkerPool.close}).
 * The kernel makes one per process; tests and benches make their own.
 *
 * @see docs/plugins.md ("Worker tasks (`core.workers`)")
 */
export class WorkerPool implements Workers {
  readonly maxThreads: number;
  private readonly tasks = new Map<string, string>();
  private piscina?: Piscina<TaskMessage, unknown>;
  private closed = false;

  /**
   * @param options - `maxThreads`: the pool's size (`workers.maxThreads`).
   * @throws RangeError when `maxThreads` is not an integer from 1 to 64.
   */
  constructor(options: { maxThreads: number }) {
    const { maxThreads } = options;
    if (!Number.isInteger(maxThreads) || maxThreads < 1 || maxThreads > 64) throw new RangeError(`core.workers: maxThreads must be an integer from 1 to 64, got ${maxThreads}`);
    this.maxThreads = maxThreads;
  }

  register<F extends TaskFunction<never, unknown> = TaskFunction<unknown, unknown>>(name: string, module: URL): WorkerTask<Parameters<F>[0], Awaited<ReturnType<F>>> {
    if (!TASK_NAME.test(name)) throw new WorkerTaskError('invalid_name', `core.workers: task name "${name}" is not <owner>.<task> (lower-case letters, digits, -)`);
    if (this.tasks.has(name)) throw new WorkerTaskError('duplicate_task', `core.workers: task "${name}" is already registered`);
    this.tasks.set(name, taskModuleHref(name, module));
    return { name, run: (input, options) => this.run(name, input, options) };
  }

  async run<O = unknown>(name: string, input: unknown, options: RunOptions = {}): Promise<O> {
    if (this.closed) throw new WorkerTaskError('closed', `core.workers is closed: task "${name}" was not run`);
    const module = this.tasks.get(name);
    if (!module) throw new WorkerTaskError('unknown_task', `core.workers: no task "${name}" is registered`);
    const transferList = options.transfer?.length ? [...options.transfer] : undefined;
    return (await this.pool().run({ module, input }, transferList ? { transferList } : {})) as O;
  }

  async warm(name: string, input: unknown): Promise<void> {
    // One task per thread, all in flight together: each idle thread takes one.
    await Promise.all(Array.from({ length: this.maxThreads }, () => this.run(name, input)));
  }

  /** Finishes queued and running tasks, then stops the threads (kernel shutdown); later runs reject with `closed`. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const piscina = this.piscina;
    this.piscina = undefined;
    await piscina?.close();
  }

  private pool(): Piscina<TaskMessage, unknown> {
    this.piscina ??= new Piscina<TaskMessage, unknown>({ filename: BOOTSTRAP, minThreads: this.maxThreads, maxThreads: this.maxThreads });
    return this.piscina;
  }
}
