import type { RouteSchema } from '../../../core/index.ts';

const SLUG = { type: 'string', maxLength: 39 } as const;

/** JSON Schema `endusers/slug.params`. */
export const slugParams = {
  $id: 'endusers/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: SLUG },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/end-user.params`. */
export const endUserParams = {
  $id: 'endusers/end-user.params',
  type: 'object',
  required: ['slug', 'endUserId'],
  properties: { slug: SLUG, endUserId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/end-user-group.params`. */
export const endUserGroupParams = {
  $id: 'endusers/end-user-group.params',
  type: 'object',
  required: ['slug', 'endUserId', 'groupId'],
  properties: { slug: SLUG, endUserId: { type: 'string', format: 'uuid' }, groupId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;
