import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/members-list.query`. */
export const membersListQuery = {
  $id: 'members/members-list.query',
  type: 'object',
  properties: { status: { enum: ['active', 'suspended', 'revoked', 'invited'] } },
} as const satisfies RouteSchema;
