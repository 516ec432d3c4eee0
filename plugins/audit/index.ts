import { compactDayFile, coreRefs, definePlugin } from '../../core/index.ts';
import { orgsRefs } from '../orgs/api.ts';
import { auditRefs } from './api.ts';
import { AuditQueries } from './audit-query.service.ts';
import { registerAuditCommands } from './audit.command.ts';
import { jwksRoute } from './routes/jwks.route.ts';
import { queryRoutes } from './routes/query.route.ts';
import { retentionRoute } from './routes/retention.route.ts';
import { verifyRoute } from './routes/verify.route.ts';
import { ingestRoute } from './routes/ingest.route.ts';
import { deadLettersRoute } from './routes/dead-letters.route.ts';
import { archiveRoutes } from './routes/archive.route.ts';
import { DayFileArchive } from './day-files.ts';
import { BatchArchive } from './batch-files.ts';
import { scheduleCompaction } from './compaction-job.ts';
import { RetentionEnforcer, scheduleRetention } from './retention-job.ts';
import { readPurgeHorizon } from './purge-horizon.ts';
import { accountsRefs } from '../accounts/api.ts';
import { MemberActivity } from './member-activity.ts';
import { OrgStats } from './org-stats.ts';
import { sessionsRoute } from './routes/sessions.route.ts';
import { heartbeatRoute } from './routes/heartbeat.route.ts';
import { statsRoutes } from './routes/stats.route.ts';

export default definePlugin({
  id: 'audit',
  deps: {
    audit: coreRefs.audit, authz: coreRefs.authz, auditHealth: coreRefs.auditHealth, auditLog: coreRefs.auditLog, auditQuery: auditRefs.query, db: coreRefs.db, clock: coreRefs.clock,
    organizations: orgsRefs.organizations, entitlements: orgsRefs.entitlements, blob: coreRefs.blob, jobs: coreRefs.jobs, events: coreRefs.events,
    mail: coreRefs.mail, memberships: orgsRefs.memberships, accounts: accountsRefs.accounts, sessions: accountsRefs.sessions, workers: coreRefs.workers,
  },
  register(reg) {
    reg.service(auditRefs.query, AuditQueries);
  },
  async init({ audit, authz, auditHealth, auditLog, auditQuery, db, clock, organizations, entitlements, blob, jobs, events, mail, memberships, accounts, sessions, workers }, ctx) {
    // The JWKS is never empty: the platform audit key exists from the first boot with this plugin.
    await auditLog.ensureSigningKey();
    // Day files: compacted on core.workers (the kernel's task), nightly through core.jobs.
    const archive = new DayFileArchive({ db, blob, auditLog, clock, logger: ctx.logger.child({ component: 'audit-archive' }), compact: (task) => compactDayFile(workers, task) });
    ctx.provide(auditRefs.dayFiles, archive);
    // Batch files: the raw archive, written as the chains grow.
    const batches = new BatchArchive({ db, blob, auditLog, clock, logger: ctx.logger.child({ component: 'audit-batches' }) });
    ctx.provide(auditRefs.batchFiles, batches);
    ctx.onStarted(() => batches.start(events));
    ctx.onShutdown(() => batches.stop());
    scheduleCompaction(jobs, archive);
    // Retention: notices to Owners, then the purge of archived days from the hot table, daily after compaction.
    const enforcer = new RetentionEnforcer({
      db, clock, log: auditLog, audit, blob, mail, entitlements, organizations, memberships, accounts, logger: ctx.logger.child({ component: 'audit-retention' }),
    });
    ctx.provide(auditRefs.retention, enforcer);
    scheduleRetention(jobs, enforcer);
    ctx.routes(
      jwksRoute(auditQuery),
      verifyRoute(auditQuery, organizations),
      ...queryRoutes({ auditQuery, clock, organizations, entitlements, authz, machineTokens: ctx.plugins.some((m) => m.id === 'keys') }),
      retentionRoute(auditQuery, clock, organizations, entitlements, async (orgId) => ({ cohort: await enforcer.openCohort(orgId), horizon: await readPurgeHorizon(db.knex, orgId) })),
      deadLettersRoute(auditHealth),
      ...archiveRoutes({ archive, batches, blob, clock, organizations, entitlements, authz }),
    );
    // Ingestion authenticates with organization API keys: only when the keys plugin provides the scheme.
    if (ctx.plugins.some((m) => m.id === 'keys')) ctx.routes(ingestRoute(audit, clock));
    else ctx.logger.info('keys plugin not enabled: POST /api/public/v1/audit/events is not mounted');
    // Console figures: members' sessions, active-time heartbeats, dashboard stats (docs/api/audit.md "Console figures").
    const activity = new MemberActivity(db.knex, clock);
    const consoleAccess = { organizations, authz, machineTokens: ctx.plugins.some((m) => m.id === 'keys') };
    ctx.routes(
      sessionsRoute({ ...consoleAccess, memberships, sessions }),
      heartbeatRoute(organizations, activity),
      ...statsRoutes({ ...consoleAccess, stats: new OrgStats({ auditLog, clock, entitlements, memberships, accounts, activity }) }),
    );
  },
  commands(program, env) {
    registerAuditCommands(program, async () => {
      const aerie = await env.boot();
      return { auditQuery: aerie.resolve(auditRefs.query), organizations: aerie.resolve(orgsRefs.organizations), close: () => aerie.close() };
    });
  },
});
