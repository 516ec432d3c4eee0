import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/register.body`. */
export const registerBody = {
  $id: 'members/register.body',
  type: 'object',
  additionalProperties: false,
  required: ['Token'],
  properties: {
    Token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    DisplayName: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' },
  },
} as const satisfies RouteSchema;
