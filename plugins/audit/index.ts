import { coreExtensions, coreRefs, definePlugin, loadOrCreateAuditKey } from '../../core/index.ts';
import { orgsRefs } from '../orgs/api.ts';
import { jwksRoute } from './routes/jwks.route.ts';
import { queryRoutes } from './routes/query.route.ts';
import { retentionRoute } from './routes/retention.route.ts';
import { verifyRoute } from './routes/verify.route.ts';
import { ingestRoute } from './routes/ingest.route.ts';
import { deadLettersRoute } from './routes/dead-letters.route.ts';

export default definePlugin({
  id: 'audit',
  deps: { audit: coreRefs.audit, auditHealth: coreRefs.auditHealth, db: coreRefs.db, clock: coreRefs.clock, crypto: coreRefs.crypto, organizations: orgsRefs.organizations, entitlements: orgsRefs.entitlements },
  async init({ audit, auditHealth, db, clock, crypto, organizations, entitlements }, ctx) {
    // The JWKS is never empty: the platform audit key exists from the first boot with this plugin.
    await loadOrCreateAuditKey(db.knex, crypto.envelope);
    const grants = ctx.extensions(coreExtensions.grants);
    ctx.routes(
      jwksRoute(db),
      verifyRoute(db, organizations),
      ...queryRoutes({ db, clock, organizations, entitlements, grants: () => grants.at(-1) }),
      retentionRoute(db, clock, organizations, entitlements),
      deadLettersRoute(auditHealth),
    );
    // Ingestion authenticates with organization API keys: only when the keys plugin provides the scheme.
    if (ctx.plugins.some((m) => m.id === 'keys')) ctx.routes(ingestRoute(db, audit, clock));
    else ctx.logger.info('keys plugin not enabled: POST /api/public/v1/audit/events is not mounted');
  },
});
