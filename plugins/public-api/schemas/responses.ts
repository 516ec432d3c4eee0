import { schemaRef, type RouteSchema } from '../../../core/index.ts';
import { apiKeySchema } from '../../keys/api.ts';

/** Shared schema `public-api/PublicOrganization`: an organization as the public API shows it. @see docs/api/public-v1.md */
export const publicOrganization = {
  $id: 'public-api/PublicOrganization',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'slug', 'ready'],
  properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, slug: { type: 'string' }, ready: { type: 'boolean' } },
} as const satisfies RouteSchema;

/** `public-api/organizations.response`: organizations owned by an email (possibly none). */
export const organizationsResponse = {
  $id: 'public-api/organizations.response',
  type: 'array',
  items: schemaRef(publicOrganization),
} as const satisfies RouteSchema;

/** `public-api/operators.response`: the active owners and admins of the key's organization. */
export const operatorsResponse = {
  $id: 'public-api/operators.response',
  type: 'object',
  additionalProperties: false,
  required: ['orgId', 'operators'],
  properties: {
    orgId: { type: 'string' },
    operators: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['email', 'role'], properties: { email: { type: 'string' }, role: { enum: ['Owner', 'Admin'] } } } },
  },
} as const satisfies RouteSchema;

const { revokedAt: _revoked, ...liveKeyProperties } = apiKeySchema.properties;

/** `public-api/me.response`: the organization behind the key, its issuer and JWKS, and the key (a live key: no `revokedAt`). */
export const meResponse = {
  $id: 'public-api/me.response',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'slug', 'ready', 'issuer', 'jwksUri', 'key'],
  properties: {
    ...publicOrganization.properties,
    issuer: { type: 'string', format: 'uri' },
    jwksUri: { type: 'string', format: 'uri' },
    key: { type: 'object', additionalProperties: false, required: apiKeySchema.required.filter((k) => k !== 'revokedAt'), properties: liveKeyProperties },
  },
} as const satisfies RouteSchema;
