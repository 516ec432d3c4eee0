import { route, type AuthzService, type RouteDef } from '../../../core/index.ts';
import type { OrganizationsService } from '../../orgs/api.ts';
import { orgReader } from '../console-access.ts';
import { STATS_LIMITS, type OrgStats } from '../org-stats.ts';
import { orgQuery } from '../schemas/org.query.ts';
import { quickStatsResponse, statsQuery, statsResponse } from '../schemas/console.ts';

/** What {@link statsRoutes} needs. */
export interface StatsRouteDeps {
  organizations: OrganizationsService;
  stats: OrgStats;
  authz: AuthzService;
  /** The keys plugin is enabled: machine tokens holding `org.audit_event_log.list` may read too. */
  machineTokens?: boolean;
}

/**
 * `GET /api/v1/admin/audit/stats?orgSlug&days` (dashboard figures over 1–90 UTC days, default 7,
 * clamped to the plan's retention) and `GET /api/v1/admin/audit/stats/quick?orgSlug` (header badge:
 * today, last 24 h, chain head, sealer backlog, members active today). Owner/Admin, or a machine
 * token with the unconstrained list scope; 404 for non-members, 403 `PERMISSION_DENIED` otherwise;
 * `payment.*` counts for the Owner only.
 * @see docs/api/audit.md "Stats"
 */
export function statsRoutes(deps: StatsRouteDeps): RouteDef[] {
  const auth = deps.machineTokens ? ['session', 'machineToken'] : 'session';
  return [
    route({
      method: 'GET', path: '/api/v1/admin/audit/stats', auth, query: statsQuery,
      response: statsResponse,
      summary: "An organization's audit dashboard figures", tags: ['audit'],
      handler: async ({ query, principal }) => {
        const reader = await orgReader(deps.organizations, deps.authz, query.orgSlug, principal);
        return deps.stats.stats(reader, query.days ?? STATS_LIMITS.defaultDays);
      },
    }),
    route({
      method: 'GET', path: '/api/v1/admin/audit/stats/quick', auth, query: orgQuery,
      response: quickStatsResponse,
      summary: "An organization's audit header figures", tags: ['audit'],
      handler: async ({ query, principal }) => deps.stats.quick(await orgReader(deps.organizations, deps.authz, query.orgSlug, principal)),
    }),
  ];
}
