import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `public-api/by-owner.body`. */
export const byOwnerBody = {
  $id: 'public-api/by-owner.body',
  type: 'object',
  additionalProperties: false,
  required: ['ownerEmail'],
  properties: { ownerEmail: { type: 'string', format: 'email', maxLength: 254 } },
} as const satisfies RouteSchema;
