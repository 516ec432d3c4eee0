export { WorkerPool } from './worker-pool.ts';
export { transferable } from './transferable.ts';
export { WorkerTaskError, type RunOptions, type TaskFunction, type WorkerTask, type WorkerTaskErrorCode, type Workers } from './workers.types.ts';
