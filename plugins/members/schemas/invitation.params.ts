import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/invitation.params`. */
export const invitationParams = {
  $id: 'members/invitation.params',
  type: 'object',
  required: ['slug', 'invitationId'],
  properties: { slug: { type: 'string', maxLength: 39 }, invitationId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;
