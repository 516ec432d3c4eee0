import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/assignment.params`. */
export const assignmentParams = {
  $id: 'rbac/assignment.params',
  type: 'object',
  required: ['slug', 'roleId', 'connectedIdRoleId'],
  properties: {
    slug: { type: 'string', maxLength: 39 },
    roleId: { type: 'string', format: 'uuid' },
    connectedIdRoleId: { type: 'string', format: 'uuid' },
  },
} as const satisfies RouteSchema;
