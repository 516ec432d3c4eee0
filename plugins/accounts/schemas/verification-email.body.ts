import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/verification-email.body`. */
export const verificationEmailBody = {
  $id: 'accounts/verification-email.body',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'code'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    code: { type: 'string', pattern: '^[0-9]{6}$' },
    session: { enum: ['token', 'cookie'], default: 'token' },
  },
} as const satisfies RouteSchema;
