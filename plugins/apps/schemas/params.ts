import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `apps/slug.params`. */
export const slugParams = {
  $id: 'apps/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** JSON Schema `apps/group-id.params`. */
export const groupIdParams = {
  $id: 'apps/group-id.params',
  type: 'object',
  required: ['slug', 'groupId'],
  properties: { slug: { type: 'string', maxLength: 39 }, groupId: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `apps/app-id.params`. */
export const appIdParams = {
  $id: 'apps/app-id.params',
  type: 'object',
  required: ['slug', 'appId'],
  properties: { slug: { type: 'string', maxLength: 39 }, appId: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `apps/group-key.params`: a group's public key (`appgroup_…`). */
export const groupKeyParams = {
  $id: 'apps/group-key.params',
  type: 'object',
  required: ['groupKey'],
  properties: { groupKey: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;
