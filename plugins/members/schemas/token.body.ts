import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/token.body`. */
export const tokenBody = {
  $id: 'members/token.body',
  type: 'object',
  additionalProperties: false,
  required: ['Token'],
  properties: { Token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
} as const satisfies RouteSchema;
