import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `keys/ApiKey`: an organization API key as listed (never its value). @see docs/api/keys.md */
export const apiKey = {
  $id: 'keys/ApiKey',
  type: 'object',
  required: ['id', 'name', 'hint', 'appGroupId', 'scopes', 'maxTokenLifetimeSeconds', 'serviceAccountId', 'createdAt', 'rotatedAt', 'revokedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    hint: { type: 'string', description: 'The last 4 characters of the value.' },
    appGroupId: NULLABLE_STRING,
    scopes: { type: 'array', items: { type: 'string' } },
    maxTokenLifetimeSeconds: { type: ['integer', 'null'], description: '`null`: the default ceiling (300 s).' },
    serviceAccountId: NULLABLE_STRING,
    createdAt: DATE_TIME,
    rotatedAt: NULLABLE_DATE_TIME,
    revokedAt: NULLABLE_DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `keys/api-key-with-value.response`: a created or rotated key with its value, shown this once. */
export const apiKeyWithValueResponse = {
  $id: 'keys/api-key-with-value.response',
  allOf: [schemaRef(apiKey), { type: 'object', required: ['apiKey'], properties: { apiKey: { type: 'string', description: 'The key value (`ah_live_…`), shown once.' } } }],
} as const satisfies RouteSchema;

/** `keys/api-keys-list.response`. */
export const apiKeysListResponse = {
  $id: 'keys/api-keys-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['apiKeys'],
  properties: { apiKeys: { type: 'array', items: schemaRef(apiKey) } },
} as const satisfies RouteSchema;

/** `keys/m2m-token.response`: a machine token (`Cache-Control: no-store`). */
export const m2mTokenResponse = {
  $id: 'keys/m2m-token.response',
  type: 'object',
  additionalProperties: false,
  required: ['accessToken', 'tokenType', 'expiresIn', 'org'],
  properties: {
    accessToken: { type: 'string', description: 'RS256 JWT; send it as `Authorization: Bearer`.' },
    tokenType: { const: 'Bearer' },
    expiresIn: { type: 'integer', description: 'The issued lifetime in seconds.' },
    org: { type: 'string', description: "The organization's slug." },
  },
} as const satisfies RouteSchema;

/** `keys/signing-key-rotate.response`. */
export const signingKeyRotateResponse = {
  $id: 'keys/signing-key-rotate.response',
  type: 'object',
  additionalProperties: false,
  required: ['kid', 'retiredKid', 'issuer', 'jwksUri'],
  properties: { kid: { type: 'string' }, retiredKid: NULLABLE_STRING, issuer: { type: 'string', format: 'uri' }, jwksUri: { type: 'string', format: 'uri' } },
} as const satisfies RouteSchema;

/** Shared schema `keys/Jwks`: an organization's JSON Web Key Set (RFC 7517), its active RS256 key. */
export const jwks = {
  $id: 'keys/Jwks',
  type: 'object',
  additionalProperties: false,
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kty', 'n', 'e', 'kid', 'use', 'alg'],
        properties: { kty: { const: 'RSA' }, n: { type: 'string' }, e: { type: 'string' }, kid: { type: 'string' }, use: { const: 'sig' }, alg: { const: 'RS256' } },
      },
    },
  },
} as const satisfies RouteSchema;

/** `keys/openid-configuration.response`: the issuer metadata of an organization. */
export const openidConfigurationResponse = {
  $id: 'keys/openid-configuration.response',
  type: 'object',
  additionalProperties: false,
  required: ['issuer', 'jwks_uri', 'token_endpoint', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported', 'access_token_signing_alg_values_supported'],
  properties: {
    issuer: { type: 'string', format: 'uri' },
    jwks_uri: { type: 'string', format: 'uri' },
    token_endpoint: { type: 'string', format: 'uri' },
    grant_types_supported: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
    scopes_supported: { type: 'array', items: { type: 'string' } },
    subject_types_supported: { type: 'array', items: { type: 'string' } },
    id_token_signing_alg_values_supported: { type: 'array', items: { type: 'string' } },
    access_token_signing_alg_values_supported: { type: 'array', items: { type: 'string' } },
  },
} as const satisfies RouteSchema;
