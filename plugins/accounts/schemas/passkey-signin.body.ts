import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/passkey-signin.body`. */
export const passkeySigninBody = {
  $id: 'accounts/passkey-signin.body',
  type: 'object',
  additionalProperties: false,
  required: ['response'],
  properties: {
    response: {
      description: 'AuthenticationResponseJSON as @simplewebauthn/browser\'s startAuthentication() returns it.',
      type: 'object',
      required: ['id', 'type', 'response'],
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 1366, pattern: '^[A-Za-z0-9_-]+$' },
        type: { const: 'public-key' },
        response: {
          type: 'object',
          required: ['clientDataJSON'],
          properties: { clientDataJSON: { type: 'string', maxLength: 65536 } },
        },
      },
    },
    session: { enum: ['token', 'cookie'], default: 'token' },
  },
} as const satisfies RouteSchema;
