import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/org.query`. */
export const orgQuery = {
  $id: 'audit/org.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: { type: 'string', minLength: 1, maxLength: 100 } },
} as const satisfies RouteSchema;
