import type { RouteSchema } from '../../../core/index.ts';
import { webauthnResponseFields } from '../../accounts/api.ts';
import { appGroupBasics } from '../../apps/api.ts';

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

/** JSON Schema `oidc/consent.body`: the end user's answer on the consent page. */
export const consentBody = {
  $id: 'oidc/consent.body',
  type: 'object',
  additionalProperties: false,
  required: ['decision'],
  properties: { decision: { enum: ['allow', 'deny'] } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/create-app-group.body`: the organization, and the app group's fields as the dashboard takes them. */
export const createAppGroupForOwnerBody = {
  $id: 'oidc/create-app-group.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgId', 'name'],
  properties: { orgId: { type: 'string', maxLength: 64 }, ...appGroupBasics },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/owner-status.body`: empty — the person comes from the bearer token, never from the body. */
export const ownerStatusBody = {
  $id: 'oidc/owner-status.body',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const satisfies RouteSchema;

/** JSON Schema `oidc/permission-check.body`. */
export const permissionCheckBody = {
  $id: 'oidc/permission-check.body',
  type: 'object',
  additionalProperties: false,
  required: ['permission'],
  properties: { permission: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-start.body`. */
export const sdkStartBody = {
  $id: 'oidc/sdk-start.body',
  type: 'object',
  additionalProperties: false,
  required: ['redirectUri', 'scope', 'codeChallenge', 'codeChallengeMethod'],
  properties: {
    redirectUri: { type: 'string', minLength: 1, maxLength: 2000 },
    scope: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[a-z_]+( [a-z_]+)*$' },
    codeChallenge: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    codeChallengeMethod: { const: 'S256' },
    nonce: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-email-code.body`. */
export const sdkEmailCodeBody = {
  $id: 'oidc/sdk-email-code.body',
  type: 'object',
  additionalProperties: false,
  required: ['signInId', 'email'],
  properties: { signInId: { type: 'string', minLength: 1, maxLength: 100 }, email: { type: 'string', minLength: 3, maxLength: 320 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-email-code-verify.body`. */
export const sdkEmailCodeVerifyBody = {
  $id: 'oidc/sdk-email-code-verify.body',
  type: 'object',
  additionalProperties: false,
  required: ['signInId', 'email', 'code'],
  properties: {
    signInId: { type: 'string', minLength: 1, maxLength: 100 }, email: { type: 'string', minLength: 3, maxLength: 320 }, code: { type: 'string', pattern: '^[0-9]{6}$' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-sign-in.body`: the SDK sign-in's handle alone. */
export const sdkSignInBody = {
  $id: 'oidc/sdk-sign-in.body',
  type: 'object',
  additionalProperties: false,
  required: ['signInId'],
  properties: { signInId: { type: 'string', minLength: 1, maxLength: 100 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-passkey.body`: the handle and an AuthenticationResponseJSON as @simplewebauthn/browser returns it. */
export const sdkPasskeyBody = {
  $id: 'oidc/sdk-passkey.body',
  type: 'object',
  additionalProperties: false,
  required: ['signInId', 'response'],
  properties: { signInId: { type: 'string', minLength: 1, maxLength: 100 }, response: { type: 'object', ...webauthnResponseFields } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-aerie-connect.body`: the SDK sign-in's handle, and `consent: true` the first time. */
export const sdkAerieConnectBody = {
  $id: 'oidc/sdk-aerie-connect.body',
  type: 'object',
  additionalProperties: false,
  required: ['signInId'],
  properties: { signInId: { type: 'string', minLength: 1, maxLength: 100 }, consent: { type: 'boolean' } },
} as const satisfies RouteSchema;
