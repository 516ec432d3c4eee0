import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `keys/key-id.params`. */
export const keyIdParams = {
  $id: 'keys/key-id.params',
  type: 'object',
  required: ['slug', 'keyId'],
  properties: { slug: { type: 'string', maxLength: 39 }, keyId: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;
