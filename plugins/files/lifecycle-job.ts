import type { Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { STORAGE_TABLE } from './file-row.ts';
import { LIFECYCLE_INTERVAL_SECONDS, LIFECYCLE_JOB, RULES_TABLE, type LifecycleService } from './lifecycle.service.ts';

export interface LifecycleJobData {
  orgId: string;
}

/**
 * `files.lifecycle`, one chain per organization: each run first claims the organization's due time
 * (`org_storage.lifecycle_next_run_at`, moved 12 hours on) and queues the next run in the same
 * transaction, then runs the rules. A duplicate or early job claims nothing and does nothing, so one
 * chain continues whatever happens; a failing rule or organization only fails its own run (the next
 * is already queued), never another organization's. An organization without rules ends its chain.
 */
export function lifecycleJob(deps: { db: Database; clock: Clock; jobs: JobsService; lifecycle: LifecycleService }): JobDefinition<LifecycleJobData> {
  return {
    name: LIFECYCLE_JOB,
    handler: async ({ data: { orgId } }) => {
      const now = deps.clock.now();
      const claimed = await deps.db.transaction(async (trx) => {
        const [rules] = await trx(RULES_TABLE).where({ orgId }).count<{ count: number }[]>({ count: '*' });
        const next = Number(rules?.count) > 0 ? new Date(now.getTime() + LIFECYCLE_INTERVAL_SECONDS * 1000) : null;
        const won = await trx(STORAGE_TABLE).where({ orgId }).where('lifecycleNextRunAt', '<=', now).update({ lifecycleNextRunAt: next });
        if (won && next) await deps.jobs.send(LIFECYCLE_JOB, { orgId }, { trx, startAfterSeconds: LIFECYCLE_INTERVAL_SECONDS });
        return won > 0 && next !== null;
      });
      if (claimed) await deps.lifecycle.runRules(orgId);
    },
  };
}
