import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/invitation-page.query`: the token from the invitation mail's link. */
export const invitationPageQuery = {
  $id: 'members/invitation-page.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    token: { type: 'string', maxLength: 200 },
  },
} as const satisfies RouteSchema;
