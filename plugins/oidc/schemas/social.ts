import { openIdCallbackQuery, schemaRef, type RouteSchema } from '../../../core/index.ts';
import { SOCIAL_PROVIDERS } from '../social-connections.ts';

/** JSON Schema `oidc/social-group.params`. */
export const socialGroupParams = {
  $id: 'oidc/social-group.params',
  type: 'object',
  required: ['slug', 'groupId'],
  properties: { slug: { type: 'string', maxLength: 39 }, groupId: { type: 'string', format: 'uuid' } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/social-connection.params`. */
export const socialConnectionParams = {
  $id: 'oidc/social-connection.params',
  type: 'object',
  required: ['slug', 'groupId', 'provider'],
  properties: { slug: { type: 'string', maxLength: 39 }, groupId: { type: 'string', format: 'uuid' }, provider: { enum: SOCIAL_PROVIDERS } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/social-login.params`. */
export const socialLoginParams = {
  $id: 'oidc/social-login.params',
  type: 'object',
  required: ['applicationKey', 'provider'],
  properties: { applicationKey: { type: 'string', maxLength: 128 }, provider: { enum: SOCIAL_PROVIDERS } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/social-callback.query`: what the social provider sends back. */
export const socialCallbackQuery = openIdCallbackQuery('oidc/social-callback.query') satisfies RouteSchema;

/** JSON Schema `oidc/social-connection.body`. */
export const socialConnectionBody = {
  $id: 'oidc/social-connection.body',
  type: 'object',
  additionalProperties: false,
  required: ['clientId'],
  properties: {
    clientId: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' },
    clientSecret: { type: 'string', maxLength: 1024, pattern: '^[\\x21-\\x7e]*$', description: 'Omitted or empty: keep the stored one.' },
    issuer: { type: 'string', maxLength: 2048, pattern: '^https://[\\x21-\\x7e]+$', description: 'Required for microsoft (the tenant issuer) and oidc.' },
  },
} as const satisfies RouteSchema;

/** Shared schema `oidc/SocialConnection`. */
export const socialConnection = {
  $id: 'oidc/SocialConnection',
  type: 'object',
  additionalProperties: false,
  required: ['provider', 'issuer', 'clientId', 'clientSecretSet', 'redirectUri', 'createdAt', 'updatedAt'],
  properties: {
    provider: { enum: SOCIAL_PROVIDERS }, issuer: { type: 'string' }, clientId: { type: 'string' }, clientSecretSet: { type: 'boolean' },
    redirectUri: { type: 'string', description: 'Register this at the provider, `{applicationKey}` standing for each application of the group.' },
    createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/social-connections.response`. */
export const socialConnectionsResponse = {
  $id: 'oidc/social-connections.response',
  type: 'object',
  additionalProperties: false,
  required: ['connections'],
  properties: { connections: { type: 'array', items: schemaRef(socialConnection) } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/sdk-social.response`: where the application sends the browser. */
export const sdkSocialResponse = {
  $id: 'oidc/sdk-social.response',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: { url: { type: 'string', description: "The provider's authorization URL (PKCE, state and nonce are Aerie's)." } },
} as const satisfies RouteSchema;
