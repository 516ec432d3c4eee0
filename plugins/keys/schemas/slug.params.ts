import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `keys/slug.params`. */
export const slugParams = {
  $id: 'keys/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;
