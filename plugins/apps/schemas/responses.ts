import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

const STRINGS = { type: 'array', items: { type: 'string' } } as const;

/** Shared schema `apps/AppGroup`. @see docs/api/apps.md */
export const appGroup = {
  $id: 'apps/AppGroup',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'publicKey', 'name', 'description', 'iconUrl', 'brandColor', 'monetizationEnabled', 'branding', 'passkeyRpId', 'serviceModel', 'field',
    'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    publicKey: { type: 'string', description: '`appgroup_…`, the public key of the group.' },
    name: { type: 'string' },
    description: NULLABLE_STRING,
    iconUrl: NULLABLE_STRING,
    brandColor: NULLABLE_STRING,
    monetizationEnabled: { type: 'boolean' },
    branding: {
      type: 'object',
      additionalProperties: false,
      required: ['primaryColor', 'backgroundColor', 'heroTitle', 'heroSubtitle', 'passkeyEnabled', 'magicLinkEnabled', 'aerieAccountEnabled', 'socialProviders'],
      properties: {
        primaryColor: NULLABLE_STRING, backgroundColor: NULLABLE_STRING, heroTitle: NULLABLE_STRING, heroSubtitle: NULLABLE_STRING,
        passkeyEnabled: { type: 'boolean' }, magicLinkEnabled: { type: 'boolean' }, aerieAccountEnabled: { type: 'boolean' }, socialProviders: STRINGS,
      },
      description: 'The hosted login page: colours, hero copy, sign-in methods.',
    },
    passkeyRpId: NULLABLE_STRING,
    serviceModel: { enum: ['SaaS', 'PaaS', null] },
    field: NULLABLE_STRING,
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `apps/Application`: an application and its OIDC client configuration (never its secret). */
export const application = {
  $id: 'apps/Application',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'appGroupId', 'name', 'kind', 'environment', 'status', 'clientKey', 'redirectUris', 'postLogoutRedirectUris', 'grantTypes',
    'allowedScopes', 'pkceRequired', 'tokenEndpointAuthMethod', 'firstParty', 'confidential', 'saml', 'secretRotatedAt', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    appGroupId: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    kind: { enum: ['Web', 'Spa', 'Native', 'Machine'] },
    environment: { enum: ['Development', 'Production'] },
    status: { enum: ['active', 'disabled'] },
    clientKey: { type: 'string', description: '`client_…`, the public client id.' },
    redirectUris: STRINGS,
    postLogoutRedirectUris: STRINGS,
    grantTypes: STRINGS,
    allowedScopes: STRINGS,
    pkceRequired: { type: 'boolean' },
    tokenEndpointAuthMethod: { enum: ['client_secret_basic', 'client_secret_post', 'none'] },
    firstParty: { type: 'boolean', description: 'The organization\'s own application (no consent screen); false for a third party\'s, whose end users consent to its scopes.' },
    confidential: { type: 'boolean', description: 'true for Web and Machine: the client has a secret.' },
    saml: {
      type: ['object', 'null'], additionalProperties: false, required: ['entityId', 'acsUrl'],
      properties: { entityId: { type: 'string' }, acsUrl: { type: 'string' } }, description: 'The SAML service-provider registration.',
    },
    secretRotatedAt: NULLABLE_DATE_TIME,
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `apps/application-with-secret.response`: a created or rotated application; `clientSecret` is shown this once (`null` for public clients). */
export const applicationWithSecretResponse = {
  $id: 'apps/application-with-secret.response',
  type: 'object',
  additionalProperties: false,
  required: [...application.required, 'clientSecret'],
  properties: { ...application.properties, clientSecret: { ...NULLABLE_STRING, description: 'Shown once; stored only as a SHA-256 hash.' } },
} as const satisfies RouteSchema;

/** `apps/applications-list.response`. */
export const applicationsListResponse = {
  $id: 'apps/applications-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['applications'],
  properties: { applications: { type: 'array', items: schemaRef(application) } },
} as const satisfies RouteSchema;

/** `apps/app-group-created.response`: the group and its first application with its secret, shown once. */
export const appGroupCreatedResponse = {
  $id: 'apps/app-group-created.response',
  type: 'object',
  additionalProperties: false,
  required: [...appGroup.required, 'application'],
  properties: { ...appGroup.properties, application: schemaRef(applicationWithSecretResponse) },
} as const satisfies RouteSchema;

/** `apps/app-groups-list.response`. */
export const appGroupsListResponse = {
  $id: 'apps/app-groups-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['appGroups'],
  properties: { appGroups: { type: 'array', items: schemaRef(appGroup) } },
} as const satisfies RouteSchema;
