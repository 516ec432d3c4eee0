import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/org.params`. */
export const orgParams = {
  $id: 'rbac/org.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;
