import { DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';
import { PROVIDERS } from '../connection-input.ts';

const URL = { type: 'string', minLength: 1, maxLength: 2048 } as const;
const TEXT = { type: 'string', maxLength: 256 } as const;

/** JSON Schema `federation/slug.params`. */
export const slugParams = {
  $id: 'federation/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** JSON Schema `federation/provider.params`. */
export const providerParams = {
  $id: 'federation/provider.params',
  type: 'object',
  required: ['slug', 'providerId'],
  properties: { slug: { type: 'string', maxLength: 39 }, providerId: { type: 'string', maxLength: 40 } },
} as const satisfies RouteSchema;

/** JSON Schema `federation/create-connection.body`. @see docs/api/federation.md */
export const createConnectionBody = {
  $id: 'federation/create-connection.body',
  type: 'object',
  additionalProperties: false,
  required: ['provider'],
  properties: {
    provider: { enum: PROVIDERS },
    allow_jit: { type: 'boolean' },
    oidc_discovery_url: URL, oidc_issuer: URL, oidc_authorization_endpoint: URL, oidc_token_endpoint: URL,
    oidc_client_id: { ...TEXT, minLength: 1 }, oidc_client_secret: { type: 'string', maxLength: 1024 },
    saml_metadata_url: URL, saml_metadata_xml: { type: 'string', maxLength: 262_144 },
    saml_sso_url: URL, saml_entity_id: { type: 'string', maxLength: 1024 }, saml_certificate: { type: 'string', maxLength: 16_384 },
  },
} as const satisfies RouteSchema;

/** Shared schema `federation/Connection`: OIDC members or SAML members, never a secret. */
export const connection = {
  $id: 'federation/Connection',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'provider', 'protocol', 'is_active', 'allow_jit', 'created_at'],
  properties: {
    id: { type: 'string', format: 'uuid' }, provider: { enum: PROVIDERS }, protocol: { enum: ['oidc', 'saml'] }, is_active: { type: 'boolean' },
    allow_jit: { type: 'boolean' }, created_at: DATE_TIME,
    oidc_discovery_url: NULLABLE_STRING, oidc_issuer: { type: 'string' }, oidc_authorization_endpoint: { type: 'string' }, oidc_token_endpoint: { type: 'string' },
    oidc_jwks_uri: NULLABLE_STRING, oidc_client_id: { type: 'string' }, oidc_client_secret_set: { type: 'boolean' },
    saml_metadata_url: NULLABLE_STRING, saml_entity_id: { type: 'string' }, saml_sso_url: { type: 'string' },
    saml_certificates: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['sha256', 'not_after'], properties: { sha256: { type: 'string' }, not_after: DATE_TIME } } },
  },
} as const satisfies RouteSchema;

/** `federation/active-connection.response`: `{ connection }`, null with native login. */
export const activeConnectionResponse = {
  $id: 'federation/active-connection.response',
  type: 'object',
  additionalProperties: false,
  required: ['connection'],
  properties: { connection: { anyOf: [schemaRef(connection), { type: 'null' }] } },
} as const satisfies RouteSchema;

/** `federation/test.response`: what saving would store, without `id`, `is_active`, `created_at`. */
export const testResponse = {
  $id: 'federation/test.response',
  type: 'object',
  additionalProperties: false,
  required: ['provider', 'protocol', 'allow_jit'],
  properties: Object.fromEntries(Object.entries(connection.properties).filter(([k]) => !['id', 'is_active', 'created_at'].includes(k))),
} as const satisfies RouteSchema;
