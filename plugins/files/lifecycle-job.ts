import type { Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { STORAGE_TABLE } from './file-row.ts';
import { LIFECYCLE_DUE, LIFECYCLE_INTERVAL_SECONDS, LIFECYCLE_JOB, RULES_TABLE, type LifecycleService } from './lifecycle.service.ts';

export interface LifecycleJobData {
  orgId: string;
}

/**
 * `files.lifecycle`, one job per organization whose rules are due: it first claims the organization's
 * due time (`org_storage.lifecycle_next_run_at`, moved 12 hours on, or cleared when the organization
 * has no rules left), then runs the rules. A duplicate or early job claims nothing and does nothing; a
 * failing rule or organization only fails its own job, never another organization's.
 */
export function lifecycleJob(deps: { db: Database; clock: Clock; lifecycle: Pick<LifecycleService, 'runRules'> }): JobDefinition<LifecycleJobData> {
  return {
    name: LIFECYCLE_JOB,
    handler: async ({ data: { orgId } }) => {
      const now = deps.clock.now();
      const claimed = await deps.db.transaction(async (trx) => {
        const [rules] = await trx(RULES_TABLE).where({ orgId }).count<{ count: number }[]>({ count: '*' });
        const next = Number(rules?.count) > 0 ? new Date(now.getTime() + LIFECYCLE_INTERVAL_SECONDS * 1000) : null;
        const won = await trx(STORAGE_TABLE).where({ orgId }).where('lifecycleNextRunAt', '<=', now).update({ lifecycleNextRunAt: next });
        return won > 0 && next !== null;
      });
      if (claimed) await deps.lifecycle.runRules(orgId);
    },
  };
}

/**
 * `files.lifecycle-due`, every 10 minutes: queues one {@link lifecycleJob} per organization whose due
 * time has come (at most one queued per organization), so a slow or failing organization holds up
 * nobody else. @returns nothing; the jobs run on their own
 */
export function scheduleLifecycle(deps: { db: Database; clock: Clock; jobs: JobsService }): void {
  deps.jobs.schedule(LIFECYCLE_DUE, { everyMinutes: 10 }, async () => {
    const due: Array<{ orgId: string }> = await deps.db.knex(STORAGE_TABLE).where('lifecycleNextRunAt', '<=', deps.clock.now()).select('orgId');
    for (const { orgId } of due) await deps.jobs.send<LifecycleJobData>(LIFECYCLE_JOB, { orgId }, { singletonKey: orgId });
  });
}
