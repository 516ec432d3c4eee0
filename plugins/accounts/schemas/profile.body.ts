import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/profile.body`. */
export const profileBody = {
  $id: 'accounts/profile.body',
  type: 'object',
  additionalProperties: false,
  required: ['displayName'],
  properties: { displayName: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' } },
} as const satisfies RouteSchema;
