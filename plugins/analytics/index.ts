import { coreRefs, definePlugin } from '../../core/index.ts';
import { appsRefs } from '../apps/api.ts';
import { auditRefs } from '../audit/api.ts';
import { endUsersRefs } from '../endusers/api.ts';
import { orgsRefs } from '../orgs/api.ts';
import { ActivityProjector } from './activity-projector.ts';
import { AnalyticsService } from './analytics.service.ts';
import { analyticsRefs } from './api.ts';
import { registerRollupTasks } from './rollup-tasks.ts';
import { scheduleRollups } from './rollup-job.ts';
import { RollupBuilder, RollupReader } from './rollups.ts';
import { analyticsRoutes } from './routes/analytics.route.ts';
import { EventCollection } from './event-collection.ts';

export default definePlugin({
  id: 'analytics',
  deps: {
    db: coreRefs.db, clock: coreRefs.clock, audit: coreRefs.audit, jobs: coreRefs.jobs, events: coreRefs.events, auditLog: coreRefs.auditLog, archive: auditRefs.dayFiles,
    organizations: orgsRefs.organizations, entitlements: orgsRefs.entitlements, appGroups: appsRefs.appGroups, endUsers: endUsersRefs.endUsers, workers: coreRefs.workers,
  },
  async init({ db, clock, audit, jobs, events, auditLog, archive, organizations, entitlements, appGroups, endUsers, workers }, ctx) {
    // Rollups: day files rolled up on core.workers (this plugin's tasks), nightly after compaction.
    const collection = new EventCollection(db, audit, clock);
    const tasks = registerRollupTasks(workers);
    const builder = new RollupBuilder({ db, archive, clock, logger: ctx.logger.child({ component: 'audit-rollups' }), rollup: tasks.rollup, collection });
    ctx.provide(analyticsRefs.rollups, builder);
    scheduleRollups({ db, clock, jobs, builder });
    // The hot end-user store follows the sealed chains.
    const projector = new ActivityProjector(db, auditLog, collection, clock, ctx.logger.child({ component: 'end-user-activity' }));
    ctx.provide(analyticsRefs.activity, projector);
    ctx.onStarted(() => projector.start(events));
    ctx.onShutdown(() => projector.stop());
    const analytics = new AnalyticsService(db, clock, new RollupReader(db, clock), auditLog, archive, tasks.forensic);
    ctx.routes(...analyticsRoutes({ analytics, organizations, entitlements, appGroups, endUsers, collection }));
  },
});
