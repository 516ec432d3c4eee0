import { DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `orgs/Organization`: an organization as every plugin answers it. @see docs/api/orgs.md */
export const organization = {
  $id: 'orgs/Organization',
  type: 'object',
  required: ['id', 'name', 'slug', 'ready', 'type', 'planKey', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    slug: { type: 'string' },
    ready: { type: 'boolean', description: 'The organization has an Org Master Seal and its owner a Personal Seal.' },
    type: { enum: ['Standard', 'Corporation', 'Project'] },
    planKey: { enum: ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] },
    createdAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `orgs/MasterSeal`: the public part of an Org Master Seal (ES256). */
export const masterSeal = {
  $id: 'orgs/MasterSeal',
  type: 'object',
  additionalProperties: false,
  required: ['kid', 'alg', 'publicJwk', 'createdAt'],
  properties: {
    kid: { type: 'string', description: 'RFC 7638 thumbprint of the public key.' },
    alg: { const: 'ES256' },
    publicJwk: {
      type: 'object',
      required: ['kty', 'crv', 'x', 'y'],
      properties: { kty: { const: 'EC' }, crv: { const: 'P-256' }, x: { type: 'string' }, y: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string' } },
    },
    createdAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `orgs/member-organization.response`: an organization with the caller's role (`null` for platform admins who are not members). */
export const memberOrganizationResponse = {
  $id: 'orgs/member-organization.response',
  allOf: [schemaRef(organization), { type: 'object', required: ['role'], properties: { role: NULLABLE_STRING } }],
} as const satisfies RouteSchema;

/** `orgs/upgrade-type.response`: the organization, the Owner role and its Org Master Seal (or `null`). */
export const upgradeTypeResponse = {
  $id: 'orgs/upgrade-type.response',
  allOf: [schemaRef(organization), {
    type: 'object',
    required: ['role', 'masterSeal'],
    properties: { role: { const: 'Owner' }, masterSeal: { anyOf: [schemaRef(masterSeal), { type: 'null' }] } },
  }],
} as const satisfies RouteSchema;

/** `orgs/set-plan.response`. */
export const setPlanResponse = {
  $id: 'orgs/set-plan.response',
  type: 'object',
  additionalProperties: false,
  required: ['slug', 'planKey'],
  properties: { slug: { type: 'string' }, planKey: { enum: ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] } },
} as const satisfies RouteSchema;

/** JSON Schema `orgs/platform-partner.response`. */
export const platformPartnerResponse = {
  $id: 'orgs/platform-partner.response',
  type: 'object',
  additionalProperties: false,
  required: ['slug', 'platformPartner'],
  properties: { slug: { type: 'string' }, platformPartner: { type: 'boolean' } },
} as const satisfies RouteSchema;
