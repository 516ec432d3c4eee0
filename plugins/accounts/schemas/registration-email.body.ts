import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/registration-email.body`. */
export const registrationEmailBody = {
  $id: 'accounts/registration-email.body',
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 254 },
    displayName: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' },
  },
} as const satisfies RouteSchema;
