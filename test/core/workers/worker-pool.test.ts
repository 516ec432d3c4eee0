import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadId } from 'node:worker_threads';
import { WorkerPool } from '../../../core/workers/worker-pool.ts';
import { WorkerTaskError } from '../../../core/workers/workers.types.ts';
import type checksum from './tasks/checksum.task.ts';
import type fill from './tasks/fill.task.ts';

const task = (file: string) => new URL(`./tasks/${file}`, import.meta.url);

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('core.workers (WorkerPool)', () => {
  let workers: WorkerPool;
  beforeAll(() => {
    workers = new WorkerPool({ maxThreads: 1 });
    workers.register('test.checksum', task('checksum.task.ts'));
    workers.register('test.fill', task('fill.task.ts'));
    workers.register('test.fail', task('fail.task.ts'));
    workers.register('test.exit', task('exit.task.ts'));
    workers.register('test.no-default', task('no-default.task.ts'));
    workers.register('test.compiled', task('compiled.task.ts'));
  });
  afterAll(() => workers.close());

  it('runs a registered task module in a worker thread and answers its result; the module stays loaded in its thread', async () => {
    const run = workers.register<typeof checksum>('test.checksum-typed', task('checksum.task.ts'));
    const first = await run.run({ bytes: new Uint8Array([1, 2, 3]) });
    expect(first).toMatchObject({ length: 3, sum: 6 });
    expect(first.threadId).not.toBe(threadId);
    const second = await workers.run<{ sum: number; runs: number; threadId: number }>('test.checksum', { bytes: new Uint8Array([250, 250]) });
    expect(second.sum).toBe(500);
    expect(second.threadId).toBe(first.threadId); // one thread: both tasks ran there
    expect(second.runs).toBe(first.runs + 1); // one module instance for both names: loaded once
    expect(await workers.run('test.checksum', { bytes: new Uint8Array(0) })).toMatchObject({ runs: first.runs + 2 });
  });

  it('moves the buffers named in `transfer` (detached in the sender afterwards) and copies the others', async () => {
    const moved = new Uint8Array(64 * 1024).fill(2);
    const result = await workers.run<{ length: number; sum: number }>('test.checksum', { bytes: moved }, { transfer: [moved.buffer] });
    expect(result).toMatchObject({ length: 64 * 1024, sum: 128 * 1024 });
    expect(moved.byteLength).toBe(0);
    expect(moved.buffer.byteLength).toBe(0);
    const copied = new Uint8Array(1024).fill(1);
    expect(await workers.run('test.checksum', { bytes: copied })).toMatchObject({ sum: 1024 });
    expect(copied.byteLength).toBe(1024);
    expect(copied[0]).toBe(1);
  });

  it('moves the buffers of a result marked transferable back, detached in the worker', async () => {
    const run = workers.register<typeof fill>('test.fill-typed', task('fill.task.ts'));
    const first = await run.run({ size: 1000, value: 7 });
    expect(first.bytes.byteLength).toBe(1000);
    expect(first.bytes.every((b) => b === 7)).toBe(true);
    const second = await workers.run<{ bytes: Uint8Array; lastDetached: boolean }>('test.fill', { size: 10, value: 1 });
    expect(second.lastDetached).toBe(true);
    expect(Array.from(second.bytes)).toEqual(Array(10).fill(1));
  });

  it('loads the compiled `.js` sibling when the registered `.ts` module is absent (the build)', async () => {
    expect(await workers.run('test.compiled', 21)).toEqual({ doubled: 42, compiled: true });
  });

  it('refuses an unknown task name with a clear error', async () => {
    const err = await rejection(workers.run('test.nope', {}));
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect(err.code).toBe('unknown_task');
    expect(err.message).toBe('core.workers: no task "test.nope" is registered');
    await expect(workers.warm('test.nope', {})).rejects.toThrow('no task "test.nope"');
  });

  it('rejects with the error a task throws (message and built-in class name), and keeps working', async () => {
    const err = await rejection(workers.run('test.fail', { why: 'the input was odd' }));
    expect(err.message).toBe('refused: the input was odd');
    expect(err.name).toBe('RangeError');
    expect(await workers.run('test.checksum', { bytes: new Uint8Array([9]) })).toMatchObject({ sum: 9 });
  });

  it('rejects when the module has no default export function, and when the thread exits mid-task; the pool goes on', async () => {
    await expect(workers.run('test.no-default', {})).rejects.toThrow(/task module .*no-default\.task\.ts has no default export function/);
    const exited = await rejection(workers.run('test.exit', null));
    expect(exited.message).toMatch(/exit/i);
    expect(await workers.run('test.checksum', { bytes: new Uint8Array([4, 4]) })).toMatchObject({ sum: 8, runs: 1 }); // a new thread
  });

  it('refuses a duplicate name, a malformed name and a missing module at registration', () => {
    const refused = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err as WorkerTaskError;
      }
      throw new Error('expected a refusal');
    };
    const duplicate = refused(() => workers.register('test.checksum', task('fill.task.ts')));
    expect(duplicate).toBeInstanceOf(WorkerTaskError);
    expect(duplicate).toMatchObject({ code: 'duplicate_task', message: 'core.workers: task "test.checksum" is already registered' });
    for (const name of ['checksum', 'Test.checksum', 'test.', 'test..x', 'test.check sum']) {
      expect(refused(() => workers.register(name, task('checksum.task.ts'))).code, name).toBe('invalid_name');
    }
    const missing = refused(() => workers.register('test.missing', task('missing.task.ts')));
    expect(missing.code).toBe('module_not_found');
    expect(missing.message).toContain('missing.task.ts');
    expect(refused(() => workers.register('test.remote', new URL('https://example.com/x.task.js'))).code).toBe('module_not_found');
    expect(() => new WorkerPool({ maxThreads: 0 })).toThrow(RangeError);
  });

  it('close() lets running tasks finish, then refuses runs', async () => {
    const pool = new WorkerPool({ maxThreads: 2 });
    pool.register('test.checksum', task('checksum.task.ts'));
    await pool.warm('test.checksum', { bytes: new Uint8Array(0) });
    const running = pool.run<{ sum: number }>('test.checksum', { bytes: new Uint8Array([5]) });
    await pool.close();
    expect((await running).sum).toBe(5);
    const err = await rejection(pool.run('test.checksum', { bytes: new Uint8Array(0) }));
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect(err).toMatchObject({ code: 'closed', message: 'core.workers is closed: task "test.checksum" was not run' });
    await pool.close(); // idempotent
    await new WorkerPool({ maxThreads: 1 }).close(); // never started: nothing to stop
  });
});
