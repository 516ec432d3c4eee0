import { route, type AuthzService, type RouteDef } from '../../../core/index.ts';
import type { SessionsService } from '../../accounts/api.ts';
import type { MembershipsService, OrganizationsService } from '../../orgs/api.ts';
import { orgReader } from '../console-access.ts';
import { sessionsQuery, sessionsResponse } from '../schemas/console.ts';

/** What {@link sessionsRoute} needs. */
export interface SessionsRouteDeps {
  organizations: OrganizationsService;
  memberships: MembershipsService;
  sessions: SessionsService;
  authz: AuthzService;
  /** The keys plugin is enabled: machine tokens holding `org.audit_event_log.list` may list too. */
  machineTokens?: boolean;
}

/**
 * `GET /api/v1/admin/audit/sessions?orgSlug&page&pageSize` → `{ items: MemberSession[], page,
 * pageSize, total }`: the live console sessions of the organization's active members, most recently
 * seen first (`pageSize` 1–100, default 25). Owner/Admin, or a machine token with the unconstrained
 * list scope; 404 for non-members, 403 `PERMISSION_DENIED` otherwise. Never a token or its hash.
 * @see docs/api/audit.md "Members' sessions"
 */
export function sessionsRoute(deps: SessionsRouteDeps): RouteDef {
  return route({
    method: 'GET', path: '/api/v1/admin/audit/sessions', auth: deps.machineTokens ? ['session', 'machineToken'] : 'session', query: sessionsQuery,
    response: sessionsResponse,
    summary: "Live console sessions of the organization's members", tags: ['audit'],
    handler: async ({ query, principal }) => {
      const reader = await orgReader(deps.organizations, deps.authz, query.orgSlug, principal);
      const page = query.page ?? 1;
      const pageSize = query.pageSize ?? 25;
      const listed = await deps.sessions.listLive(deps.memberships.activeAccountsQuery(reader.org.organization.id), { offset: (page - 1) * pageSize, limit: pageSize });
      return {
        page, pageSize, total: listed.total,
        items: listed.items.map((s) => ({
          id: s.id, accountId: s.accountId, email: s.email, displayName: s.displayName, createdAt: s.createdAt.toISOString(), lastSeenAt: s.lastSeenAt.toISOString(),
          expiresAt: s.expiresAt.toISOString(), absoluteExpiresAt: s.absoluteExpiresAt.toISOString(), userAgent: s.userAgent, ip: s.ip, current: s.id === reader.sessionId,
        })),
      };
    },
  });
}
