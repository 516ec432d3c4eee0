import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `public-api/by-key.body`. */
export const byKeyBody = {
  $id: 'public-api/by-key.body',
  type: 'object',
  additionalProperties: false,
  required: ['groupKey'],
  properties: { groupKey: { type: 'string', minLength: 1, maxLength: 64 } },
} as const satisfies RouteSchema;
