import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/resend.body`. */
export const resendBody = {
  $id: 'members/resend.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    InvitationId: { type: 'string', format: 'uuid' },
    Email: { type: 'string', format: 'email', maxLength: 254 },
  },
} as const satisfies RouteSchema;
