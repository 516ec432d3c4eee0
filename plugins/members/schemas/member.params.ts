import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/member.params`. */
export const memberParams = {
  $id: 'members/member.params',
  type: 'object',
  required: ['slug', 'connectedIdId'],
  properties: { slug: { type: 'string', maxLength: 39 }, connectedIdId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;
