/**
 * `core.workers`: the process's one worker-thread pool, running task modules the kernel and the
 * plugins register by name.
 *
 * @see docs/plugins.md ("Worker tasks (`core.workers`)")
 */

/**
 * What a task module's default export is: one input in, one result (or its promise) out. Input
 * and result cross the thread boundary by structured clone (plain data, typed arrays, `Map`,
 * `Date`, errors; no functions or class instances), except the buffers moved with
 * `RunOptions.transfer` and `transferable(result, buffers)`.
 */
export type TaskFunction<I = never, O = unknown> = (input: I) => O | Promise<O>;

/** Options of one run. */
export interface RunOptions {
  /**
   * ArrayBuffers of `input` to move to the thread instead of copying them: each is detached in the
   * caller (`byteLength` 0) once the task is posted — do not use them after `run`. Pass only
   * buffers the input owns whole: a `SharedArrayBuffer` rejects the run with a `TypeError`, and
   * the pooled 8 KiB slab under a small Node `Buffer` is copied by Node 20 (refused by later versions).
   */
  transfer?: readonly ArrayBuffer[];
}

/** A registered task, typed from its module's default export (what `Workers.register` answers). */
export interface WorkerTask<I, O> {
  /** The name it was registered under. */
  readonly name: string;
  /** `workers.run(name, input, options)`, typed. */
  run(input: I, options?: RunOptions): Promise<O>;
}

/** Why `core.workers` refused a registration or a run (`code`, and a message naming the task). */
export type WorkerTaskErrorCode = 'invalid_name' | 'duplicate_task' | 'module_not_found' | 'unknown_task' | 'closed';

/**
 * A registration or a run `core.workers` refused. A task's own failure is not one of these: the
 * run rejects with the error the task threw (structured-cloned: its message, and its `name` for
 * the built-in error classes).
 */
export class WorkerTaskError extends Error {
  override readonly name = 'WorkerTaskError';
  constructor(readonly code: WorkerTaskErrorCode, message: string) {
    super(message);
  }
}

/**
 * The kernel service `core.workers` (`coreRefs.workers`).
 *
 * One piscina pool for the whole process, started on the first `run` or `warm` (registering
 * starts nothing): `workers.maxThreads` threads (`AERIE_WORKERS_MAX_THREADS`, default 2), started
 * together and kept until the kernel shuts down, when queued and running tasks finish and the
 * threads stop. Each thread loads a task module on its first run there (TypeScript through tsx
 * when run from the sources, the compiled `.js` in the build) and keeps it.
 *
 * @see docs/plugins.md ("Worker tasks (`core.workers`)")
 */
export interface Workers {
  /**
   * Registers the task module at `module` under `name`. Nothing is loaded on this thread.
   *
   * @param name - `<owner>.<task>`: lower-case letters, digits and `-`, in two or more dotted
   *   segments, the first the plugin's id (`analytics.rollup-day`; the kernel's start with `core.`).
   * @param module - a `file:` URL of the module, `new URL('./x.task.ts', import.meta.url)`; in the
   *   compiled build, where the `.ts` is absent, its `.js` sibling is taken. Its default export is
   *   a {@link TaskFunction}; it runs in a thread with no kernel, so it imports from Aerie only
   *   `core/worker-api.ts` (and `core/index.ts` for types).
   * @returns the task, typed from `F` (`register<typeof rollupDay>(…)` with `import type rollupDay from './rollup-day.task.ts'`;
   *   without `F`, input and result are `unknown`).
   * @throws WorkerTaskError `invalid_name`, `duplicate_task` (the name is taken) or
   *   `module_not_found` (no such file, nor its `.js` sibling).
   */
  register<F extends TaskFunction<never, unknown> = TaskFunction<unknown, unknown>>(name: string, module: URL): WorkerTask<Parameters<F>[0], Awaited<ReturnType<F>>>;

  /**
   * Runs the task `name` on a pool thread with `input` (queued while every thread is busy).
   *
   * @returns the task's result.
   * @throws (rejects) WorkerTaskError `unknown_task` or `closed` (after shutdown); the task's own
   *   error when it throws or rejects; a `TypeError` when its module has no default export
   *   function; an `Error` when its thread exits mid-task (the pool starts another).
   */
  run<O = unknown>(name: string, input: unknown, options?: RunOptions): Promise<O>;

  /**
   * Starts the pool and runs `input` on the task `name` once per thread, all at once, so each
   * thread has loaded the module before real work arrives (a thread's first task from the
   * TypeScript sources waits 0.5–1 s for tsx and the module). Resolves when all are done.
   *
   * @throws (rejects) as {@link Workers.run}.
   */
  warm(name: string, input: unknown): Promise<void>;

  /** The pool's size (`workers.maxThreads`). */
  readonly maxThreads: number;
}
