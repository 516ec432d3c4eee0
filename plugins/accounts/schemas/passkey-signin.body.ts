import type { RouteSchema } from '../../../core/index.ts';
import { webauthnResponseFields } from './webauthn-response.ts';

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
      ...webauthnResponseFields,
    },
    session: { enum: ['token', 'cookie'], default: 'token' },
  },
} as const satisfies RouteSchema;
