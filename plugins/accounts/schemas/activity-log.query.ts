import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/activity-log.query`. */
export const activityLogQuery = {
  $id: 'accounts/activity-log.query',
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200 } },
} as const satisfies RouteSchema;
