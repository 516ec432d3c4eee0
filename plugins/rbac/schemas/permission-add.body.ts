import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/permission-add.body`. */
export const permissionAddBody = {
  $id: 'rbac/permission-add.body',
  type: 'object',
  additionalProperties: false,
  required: ['Scope'],
  properties: { Scope: { type: 'string', minLength: 1, maxLength: 1024 } },
} as const satisfies RouteSchema;
