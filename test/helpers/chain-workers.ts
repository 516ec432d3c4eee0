import { registerChainTasks, type ChainTasks } from '../../core/audit/chain/chain-tasks.ts';
import { WorkerPool } from '../../core/workers/worker-pool.ts';

/**
 * A `core.workers` pool of its own with the audit chain's tasks registered, as the kernel does at
 * boot: `tasks` for the sealer and ingestion, `workers` for `compactDayFile` and `close()`.
 */
export function chainWorkers(maxThreads = 1): { workers: WorkerPool; tasks: ChainTasks } {
  const workers = new WorkerPool({ maxThreads });
  return { workers, tasks: registerChainTasks(workers) };
}
