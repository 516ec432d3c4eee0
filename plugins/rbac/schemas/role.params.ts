import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/role.params`. */
export const roleParams = {
  $id: 'rbac/role.params',
  type: 'object',
  required: ['slug', 'roleId'],
  properties: { slug: { type: 'string', maxLength: 39 }, roleId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;
