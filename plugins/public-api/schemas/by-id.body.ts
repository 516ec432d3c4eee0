import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `public-api/by-id.body`. */
export const byIdBody = {
  $id: 'public-api/by-id.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgId'],
  properties: { orgId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const satisfies RouteSchema;
