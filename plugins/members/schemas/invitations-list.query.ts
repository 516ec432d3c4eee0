import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/invitations-list.query`. */
export const invitationsListQuery = {
  $id: 'members/invitations-list.query',
  type: 'object',
  properties: { status: { enum: ['pending', 'accepted', 'declined', 'cancelled', 'expired'] } },
} as const satisfies RouteSchema;
