import { notFound, route, type Clock, type RouteDef } from '../../../core/index.ts';
import type { EntitlementsService, OrganizationsService } from '../../orgs/api.ts';
import type { AuditQueryService } from '../api.ts';
import { retentionSchedule, type OpenCohort } from '../retention-schedule.ts';
import type { PurgeHorizon } from '../purge-horizon.ts';
import { orgQuery } from '../schemas/org.query.ts';
import { retentionResponse } from '../schemas/responses.ts';

/**
 * `GET /api/v1/admin/audit/retention?orgSlug=` (session, any active member; 404 otherwise):
 * the organization's retention window and purge schedule ({@link retentionSchedule}), with the open
 * cohort's times once its first notice was sent and the purge horizon.
 * @param state - the organization's open cohort and purge horizon.
 * @see docs/audit.md
 */
export function retentionRoute(
  auditQuery: AuditQueryService, clock: Clock, organizations: OrganizationsService, entitlements: EntitlementsService,
  state: (orgId: string) => Promise<{ cohort?: OpenCohort; horizon?: PurgeHorizon }>,
): RouteDef {
  return route({
    method: 'GET', path: '/api/v1/admin/audit/retention', auth: 'session', query: orgQuery,
    response: retentionResponse,
    summary: "The organization's audit retention window", tags: ['audit'],
    handler: async ({ query, principal }) => {
      const org = await organizations.resolveContext(query.orgSlug, principal);
      if (!org?.membership) throw notFound();
      const oldest = await auditQuery.oldestOccurredAt(org.organization.id);
      return retentionSchedule(org.organization.planKey, await entitlements.retentionDays(org.organization.id), oldest, clock.now(), await state(org.organization.id));
    },
  });
}
