import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/role-update.body`. */
export const roleUpdateBody = {
  $id: 'rbac/role-update.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    Name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' },
    RoleKey: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{1,63}$' },
    Description: { type: 'string', maxLength: 500 },
    RequiresApproval: { type: 'boolean' },
    IsActive: { type: 'boolean' },
  },
} as const satisfies RouteSchema;
