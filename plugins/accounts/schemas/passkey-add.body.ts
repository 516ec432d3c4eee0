import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/passkey-add.body`. */
export const passkeyAddBody = {
  $id: 'accounts/passkey-add.body',
  type: 'object',
  additionalProperties: false,
  required: ['response'],
  properties: {
    response: {
      description: 'RegistrationResponseJSON as @simplewebauthn/browser\'s startRegistration() returns it.',
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
    name: { type: 'string', maxLength: 100 },
  },
} as const satisfies RouteSchema;
