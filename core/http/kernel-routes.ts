import type { Database } from '../db/database.ts';
import type { AuditHealthService } from '../audit/audit-health.ts';
import { AerieError } from '../errors.ts';
import { route, type RouteDef } from './route.ts';
import { healthzResponse, readyzResponse } from './kernel-schemas.ts';

/**
 * The kernel's own routes: `GET /healthz` (the process is up) and `GET /readyz` (the database
 * answers; migrations ran at boot, before the server started listening). `/readyz` also reports
 * the audit chain's health — sealer lag, dead letters, this process's sealer state — without
 * failing readiness on it: a stalled sealer must be visible, not take every instance out of service.
 * @see docs/api/kernel.md
 */
export function kernelRoutes(db: Database, auditHealth: () => AuditHealthService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/healthz', auth: 'public', summary: 'Process is up', tags: ['kernel'],
      response: healthzResponse,
      handler: () => ({ status: 'ok' }),
    }),
    route({
      method: 'GET', path: '/readyz', auth: 'public', summary: 'Database reachable and migrations applied', tags: ['kernel'],
      response: readyzResponse,
      handler: async () => {
        try {
          await db.ping();
        } catch {
          throw new AerieError(503, 'NOT_READY', 'The database is not reachable.');
        }
        return { status: 'ready', database: db.kind, audit: await auditHealth().health() };
      },
    }),
  ];
}
