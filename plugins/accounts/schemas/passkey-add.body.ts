import type { RouteSchema } from '../../../core/index.ts';
import { webauthnResponseFields } from './webauthn-response.ts';

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
      ...webauthnResponseFields,
    },
    name: { type: 'string', maxLength: 100, format: 'display-name' },
  },
} as const satisfies RouteSchema;
