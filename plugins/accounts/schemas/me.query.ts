import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/me.query`. */
export const meQuery = {
  $id: 'accounts/me.query',
  type: 'object',
  additionalProperties: false,
  properties: { _t: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;
