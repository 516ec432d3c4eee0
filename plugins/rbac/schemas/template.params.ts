import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/template.params`. */
export const templateParams = {
  $id: 'rbac/template.params',
  type: 'object',
  required: ['slug', 'roleId', 'templateId'],
  properties: {
    slug: { type: 'string', maxLength: 39 },
    roleId: { type: 'string', format: 'uuid' },
    templateId: { type: 'string', format: 'uuid' },
  },
} as const satisfies RouteSchema;
