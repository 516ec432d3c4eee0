import { notFound, route, type RouteDef } from '../../../core/index.ts';
import type { OrganizationsService } from '../../orgs/api.ts';
import type { MemberActivity } from '../member-activity.ts';
import { heartbeatBody, heartbeatResponse } from '../schemas/console.ts';

/**
 * `POST /api/v1/admin/audit/heartbeat` `{ orgSlug }` → 200 `{ day, creditedSeconds,
 * activeSecondsToday, nextBeatSeconds }`: the console's active-time beat of a member (session only,
 * any active member; 404 otherwise). Credits at most the time since the member's previous beat,
 * capped at 60 s (`HEARTBEAT`); writes no audit event.
 * @see docs/api/audit.md "Heartbeat"
 */
export function heartbeatRoute(organizations: OrganizationsService, activity: MemberActivity): RouteDef {
  return route({
    method: 'POST', path: '/api/v1/admin/audit/heartbeat', auth: 'session', body: heartbeatBody,
    response: heartbeatResponse,
    summary: "Record a member's active time in the console", tags: ['audit'],
    handler: async ({ body, principal }) => {
      const org = await organizations.resolveContext(body.orgSlug, principal);
      if (!org?.membership || !principal.accountId) throw notFound();
      return activity.beat(org.organization.id, principal.accountId);
    },
  });
}
