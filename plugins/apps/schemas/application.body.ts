import type { RouteSchema } from '../../../core/index.ts';

const URIS = { type: 'array', maxItems: 50, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 2000 } } as const;
const CONFIG = {
  name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' },
  redirectUris: URIS,
  postLogoutRedirectUris: URIS,
  grantTypes: { type: 'array', minItems: 1, maxItems: 3, uniqueItems: true, items: { enum: ['authorization_code', 'refresh_token', 'client_credentials'] } },
  allowedScopes: { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' } },
  pkceRequired: { type: 'boolean' },
  tokenEndpointAuthMethod: { enum: ['client_secret_basic', 'client_secret_post', 'none'] },
  firstParty: { type: 'boolean' },
  saml: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['entityId', 'acsUrl'],
    // Length and https are checked by the service (400 CLIENT_CONFIG_INVALID); this only bounds the input.
    properties: { entityId: { type: 'string', minLength: 1, maxLength: 2000 }, acsUrl: { type: 'string', minLength: 1, maxLength: 2000 } },
  },
} as const;

/** JSON Schema `apps/create-application.body`. @see docs/api/apps.md */
export const createApplicationBody = {
  $id: 'apps/create-application.body',
  type: 'object',
  additionalProperties: false,
  required: ['appGroupId', 'name', 'kind', 'environment'],
  properties: {
    appGroupId: { type: 'string', minLength: 1, maxLength: 64 },
    kind: { enum: ['Web', 'Spa', 'Native', 'Machine'] },
    environment: { enum: ['Development', 'Production'] },
    ...CONFIG,
  },
} as const satisfies RouteSchema;

/** JSON Schema `apps/create-group-application.body`: `POST …/app-groups/{groupId}/apps`, the group comes from the path. */
export const createGroupApplicationBody = {
  $id: 'apps/create-group-application.body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'environment'],
  properties: {
    kind: createApplicationBody.properties.kind,
    environment: createApplicationBody.properties.environment,
    ...CONFIG,
  },
} as const satisfies RouteSchema;

/** JSON Schema `apps/update-application.body`: the client configuration; only the members sent change. */
export const updateApplicationBody = {
  $id: 'apps/update-application.body',
  type: 'object',
  additionalProperties: false,
  properties: CONFIG,
} as const satisfies RouteSchema;

/** JSON Schema `apps/application-status.body`. */
export const applicationStatusBody = {
  $id: 'apps/application-status.body',
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { enum: ['active', 'disabled'] } },
} as const satisfies RouteSchema;
