import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `orgs/slug.params`. */
export const slugParams = {
  $id: 'orgs/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;
