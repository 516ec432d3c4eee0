import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/assign.body`. */
export const assignBody = {
  $id: 'rbac/assign.body',
  type: 'object',
  additionalProperties: false,
  required: ['ConnectedIdId'],
  properties: {
    ConnectedIdId: { type: 'string', format: 'uuid' },
    Variables: {
      type: 'object',
      maxProperties: 20,
      propertyNames: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' },
      additionalProperties: { type: 'string', pattern: '^[^,:\\s*\\u0000-\\u001f\\u007f]{1,200}$' },
    },
    SealAssertionJson: { type: 'string', maxLength: 20000 },
  },
} as const satisfies RouteSchema;
