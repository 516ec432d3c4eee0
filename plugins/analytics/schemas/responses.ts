import { DATE_TIME, NULLABLE_STRING, type RouteSchema } from '../../../core/index.ts';

const int = { type: 'integer', minimum: 0 } as const;
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const yes = { const: true } as const;
const no = { const: false } as const;
const date = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } as const;
const obj = <P extends Record<string, unknown>>(properties: P) => ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties }) as const;
const list = <P extends Record<string, unknown>>(properties: P) => ({ type: 'array', items: obj(properties) }) as const;
const notYet = obj({ available: no, reason: { const: 'no_rollups_yet' } as const });

/** `analytics/rollup.response`: `/analytics/rollup`. @see docs/api/audit-analytics.md */
export const signInRollupResponse = {
  $id: 'analytics/rollup.response',
  oneOf: [
    notYet,
    obj({
      available: yes, days: int, coveredDates: int, requestedDates: int,
      daily: list({ date, logins: int, failures: int, totalEvents: int }),
      failureReasons: list({ reason: str, count: int }),
      totals: obj({ logins: int, failures: int, attempts: int, failureRatePct: { type: 'number', minimum: 0, maximum: 100 } as const }),
    }),
  ],
} as const satisfies RouteSchema;

/** `analytics/behavior.response`: `/behavior/rollup`. @see docs/api/audit-analytics.md */
export const behaviorRollupResponse = {
  $id: 'analytics/behavior.response',
  oneOf: [
    notYet,
    obj({
      available: yes, days: int, appGroupId: NULLABLE_STRING, coveredDates: int, requestedDates: int,
      totals: obj({ pageViews: int, dwellMs: int, avgDwellMs: int, visitorsUpperBound: int, identifiedUsersUpperBound: int }),
      daily: list({ date, pageViews: int, dwellMs: int, visitors: int, identifiedUsers: int }),
      pages: list({ path: str, views: int, dwellMs: int, avgDwellMs: int }),
      referrers: list({ host: str, count: int }),
      campaigns: list({ source: str, count: int }),
      countries: list({ country: str, views: int }),
    }),
  ],
} as const satisfies RouteSchema;

/** `analytics/analytics.response`: `/analytics`. @see docs/api/audit-analytics.md */
export const analyticsResponse = {
  $id: 'analytics/analytics.response',
  ...obj({
    days: int, addonActive: bool, freeWindowDays: int, windowSource: { enum: ['hot', 'rollup', 'hot_fallback'] } as const,
    rollupCoveredDates: int, rollupRequestedDates: int,
    appGroups: list({ id: str, name: str, eventsEnabled: bool }),
    kpi: obj({ mau: int, mauPrev: int, logins: int, loginsPrev: int, signups: int, signupsPrev: int, dauToday: int }),
    daily: list({ date, logins: int, dau: int, signups: int }),
    providers: list({ provider: str, count: int }),
    byAppGroup: list({ appGroupId: str, name: str, activeUsers: int, logins: int }),
    topUsers: list({ email: NULLABLE_STRING, displayName: NULLABLE_STRING, logins: int }),
    topIps: list({ ip: str, count: int, users: int }),
    orgEventTypes: list({ eventType: str, count: int, sealedCount: int }),
    orgAuditWindowDays: int,
  }),
} as const satisfies RouteSchema;

/** `analytics/forensic.response`: `/stats/forensic`. @see docs/api/audit-analytics.md */
export const forensicResponse = {
  $id: 'analytics/forensic.response',
  ...obj({
    email: str, appGroupId: str, days: int, truncated: bool, archiveDays: int,
    items: list({ seq: int, at: DATE_TIME, kind: { enum: ['login', 'failure', 'signup'] } as const, method: NULLABLE_STRING, reason: NULLABLE_STRING, ip: NULLABLE_STRING }),
  }),
} as const satisfies RouteSchema;

/** `analytics/event-collection.response`: the switch after the call; `changed` false when it already was so. */
export const eventCollectionResponse = {
  $id: 'analytics/event-collection.response',
  ...obj({ appGroupId: str, eventsEnabled: bool, changed: bool }),
} as const satisfies RouteSchema;
