import { route, type RouteDef } from '../../../core/index.ts';
import type { ActivityLogService } from '../activity-log.service.ts';
import { SIGNED_IN } from './passkeys.route.ts';
import { activityLogQuery } from '../schemas/activity-log.query.ts';
import { activityLogResponse } from '../schemas/responses.ts';

/** Rows answered when `limit` is not given. */
export const ACTIVITY_PAGE_SIZE = 50;

/**
 * `GET /api/auth/activity-log?limit=` → `{items:[{id, eventType, method, keyId, keyFingerprint, ip,
 * userAgent, occurredAt}]}`, newest first: `auth.login` rows and `seal.lifecycle.registered` /
 * `seal.lifecycle.revoked` rows; `keyId` and `keyFingerprint` are null on non-passkey rows.
 * @see docs/audit.md
 */
export function activityLogRoutes(activity: ActivityLogService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/auth/activity-log', auth: SIGNED_IN, query: activityLogQuery,
      response: activityLogResponse,
      summary: 'Sign-ins and passkey changes of the signed-in account', tags: ['accounts'],
      handler: async ({ principal, query }) => ({ items: await activity.list(principal.accountId, query.limit ?? ACTIVITY_PAGE_SIZE) }),
    }),
  ];
}
