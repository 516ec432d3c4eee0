import type { RouteSchema } from '../../../core/index.ts';
import { webauthnResponseFields } from '../../accounts/api.ts';

/** JSON Schema `oidc/email-code.body`. */
export const emailCodeBody = {
  $id: 'oidc/email-code.body',
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 320 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/email-code-verify.body`. */
export const emailCodeVerifyBody = {
  $id: 'oidc/email-code-verify.body',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'code'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 320 }, code: { type: 'string', pattern: '^[0-9]{6}$' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/passkey.body`: `{response}`, an AuthenticationResponseJSON or RegistrationResponseJSON as @simplewebauthn/browser returns it. */
export const passkeyBody = {
  $id: 'oidc/passkey.body',
  type: 'object',
  additionalProperties: false,
  required: ['response'],
  properties: { response: { type: 'object', ...webauthnResponseFields } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/aerie-connect.body`: `consent: true` the first time. */
export const aerieConnectBody = {
  $id: 'oidc/aerie-connect.body',
  type: 'object',
  additionalProperties: false,
  properties: { consent: { type: 'boolean' } },
} as const satisfies RouteSchema;
