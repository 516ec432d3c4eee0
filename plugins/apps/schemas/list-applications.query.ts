import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `apps/list-applications.query`: `appGroupId` narrows the list to one group. */
export const listApplicationsQuery = {
  $id: 'apps/list-applications.query',
  type: 'object',
  additionalProperties: false,
  properties: { appGroupId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const satisfies RouteSchema;
