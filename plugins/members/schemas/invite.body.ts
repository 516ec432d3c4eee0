import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/invite.body`. */
export const inviteBody = {
  $id: 'members/invite.body',
  type: 'object',
  additionalProperties: false,
  required: ['Email', 'RoleId'],
  properties: {
    Email: { type: 'string', format: 'email', maxLength: 254 },
    RoleId: { type: 'string', format: 'uuid' },
    ReportingManagerId: { type: 'string', format: 'uuid' },
    BoardChairman: { type: 'boolean' },
    BoardSharePercent: { type: 'number', minimum: 0, maximum: 100, multipleOf: 0.0001 },
    SealAssertionJson: { type: 'string', maxLength: 20000 },
    SealEmail: { type: 'string', format: 'email', maxLength: 254 },
  },
} as const satisfies RouteSchema;
