import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `oidc/email-code.response`. */
export const emailCodeResponse = {
  $id: 'oidc/email-code.response',
  type: 'object',
  additionalProperties: false,
  required: ['sent', 'expiresInSeconds'],
  properties: { sent: { const: true }, expiresInSeconds: { type: 'integer' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/redirect.response`: where the browser goes next. */
export const redirectResponse = {
  $id: 'oidc/redirect.response',
  type: 'object',
  additionalProperties: false,
  required: ['redirectTo'],
  properties: { redirectTo: { type: 'string' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/login-methods.response`. @see docs/api/signin.md "Login methods" */
export const loginMethodsResponse = {
  $id: 'oidc/login-methods.response',
  type: 'object',
  additionalProperties: false,
  required: ['applicationKey', 'appGroup', 'methods'],
  properties: {
    applicationKey: { type: 'string' },
    appGroup: {
      type: 'object', additionalProperties: false, required: ['key', 'name', 'iconUrl', 'brandColor'],
      properties: { key: { type: 'string' }, name: { type: 'string' }, iconUrl: { type: ['string', 'null'] }, brandColor: { type: ['string', 'null'] } },
    },
    methods: {
      type: 'object', additionalProperties: false, required: ['emailCode', 'passkey', 'social', 'aerieAccount'],
      properties: { emailCode: { type: 'boolean' }, passkey: { type: 'boolean' }, social: { type: 'array', items: { type: 'string' } }, aerieAccount: { type: 'boolean' } },
    },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/userinfo.response` (OpenID Connect Core 5.3.2). */
export const userinfoResponse = {
  $id: 'oidc/userinfo.response',
  type: 'object',
  required: ['sub'],
  properties: { sub: { type: 'string' }, email: { type: 'string' }, email_verified: { type: 'boolean' }, name: { type: 'string' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/provider.response`: an answer of the OpenID provider (OAuth 2.0 / OpenID Connect JSON, or a page, or a redirect). */
export const providerJson = {
  $id: 'oidc/provider.response',
  type: 'object',
} as const satisfies RouteSchema;

/** JSON Schema `oidc/passkey-options.response`: `{options}` for @simplewebauthn/browser's startAuthentication() / startRegistration(). */
export const passkeyOptionsResponse = {
  $id: 'oidc/passkey-options.response',
  type: 'object',
  additionalProperties: false,
  required: ['options'],
  properties: { options: { type: 'object', required: ['challenge'], properties: { challenge: { type: 'string' }, rpId: { type: 'string' } } } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/aerie-account-preview.response`. */
export const aerieAccountPreviewResponse = {
  $id: 'oidc/aerie-account-preview.response',
  type: 'object',
  additionalProperties: false,
  required: ['application', 'shares', 'consentRequired', 'enabled', 'emailVerified'],
  properties: {
    application: {
      type: 'object', additionalProperties: false, required: ['key', 'name', 'appGroup', 'organization'],
      properties: { key: { type: 'string' }, name: { type: 'string' }, appGroup: { type: 'string' }, organization: { type: 'string' } },
    },
    shares: { type: 'array', items: { type: 'string' } },
    consentRequired: { type: 'boolean' },
    enabled: { type: 'boolean' },
    emailVerified: { type: 'boolean' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/aerie-connect.response`. */
export const aerieConnectResponse = {
  $id: 'oidc/aerie-connect.response',
  type: 'object',
  additionalProperties: false,
  required: ['connected', 'endUserId'],
  properties: { connected: { const: true }, endUserId: { type: 'string' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/owner-status.response`. */
export const ownerStatusResponse = {
  $id: 'oidc/owner-status.response',
  type: 'object',
  additionalProperties: false,
  required: ['state', 'email', 'orgs'],
  properties: {
    state: { enum: ['no_owner_account', 'owner_account_exists'] },
    email: { type: 'string' },
    orgs: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['id', 'name', 'slug', 'ready'],
        properties: { id: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' }, ready: { type: 'boolean' } },
      },
    },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/owner-app-group.response`: the shape of `POST /api/public/v1/app-groups/by-key`. */
export const ownerAppGroupResponse = {
  $id: 'oidc/owner-app-group.response',
  type: 'object',
  additionalProperties: false,
  required: ['groupKey', 'id', 'orgId', 'name', 'description', 'iconUrl', 'brandColor'],
  properties: {
    groupKey: { type: 'string' }, id: { type: 'string' }, orgId: { type: 'string' }, name: { type: 'string' },
    description: { type: ['string', 'null'] }, iconUrl: { type: ['string', 'null'] }, brandColor: { type: ['string', 'null'] },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-start.response`. */
export const sdkStartResponse = {
  $id: 'oidc/sdk-start.response',
  type: 'object',
  additionalProperties: false,
  required: ['signInId', 'expiresInSeconds'],
  properties: { signInId: { type: 'string' }, expiresInSeconds: { type: 'integer' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-code.response`: the authorization code to exchange at the token endpoint. */
export const sdkCodeResponse = {
  $id: 'oidc/sdk-code.response',
  type: 'object',
  additionalProperties: false,
  required: ['code', 'redirectUri'],
  properties: { code: { type: 'string' }, redirectUri: { type: 'string' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/permission-check.response`. */
export const permissionCheckResponse = {
  $id: 'oidc/permission-check.response',
  type: 'object',
  additionalProperties: false,
  required: ['active', 'allowed', 'endUserId', 'appGroupId'],
  properties: { active: { type: 'boolean' }, allowed: { type: 'boolean' }, endUserId: { type: ['string', 'null'] }, appGroupId: { type: ['string', 'null'] } },
} as const satisfies RouteSchema;
