/**
 * The members of a WebAuthn response (`RegistrationResponseJSON`, `AuthenticationResponseJSON`) that
 * Aerie reads before `@simplewebauthn/server` verifies the whole: spread into an object schema.
 */
export const webauthnResponseFields = {
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
} as const;
