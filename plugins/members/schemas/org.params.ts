import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/org.params`. */
export const orgParams = {
  $id: 'members/org.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;
