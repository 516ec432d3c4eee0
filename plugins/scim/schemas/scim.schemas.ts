import { DATE_TIME, NULLABLE_DATE_TIME, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** JSON Schema `scim/slug.params`. */
export const slugParams = {
  $id: 'scim/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** JSON Schema `scim/id.params`: `{slug}` and a resource `{id}` (checked by the handler, SCIM errors). */
export const idParams = {
  $id: 'scim/id.params',
  type: 'object',
  required: ['slug', 'id'],
  properties: { slug: { type: 'string', maxLength: 39 }, id: { type: 'string', maxLength: 200 } },
} as const satisfies RouteSchema;

/** JSON Schema `scim/token-id.params`. */
export const tokenIdParams = {
  $id: 'scim/token-id.params',
  type: 'object',
  required: ['slug', 'tokenId'],
  properties: { slug: { type: 'string', maxLength: 39 }, tokenId: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `scim/create-token.body`. */
export const createTokenBody = {
  $id: 'scim/create-token.body',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' } },
} as const satisfies RouteSchema;

/** Shared schema `scim/Token` (never the value). */
export const token = {
  $id: 'scim/Token',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'createdAt', 'lastUsedAt', 'revokedAt'],
  properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, createdAt: DATE_TIME, lastUsedAt: NULLABLE_DATE_TIME, revokedAt: NULLABLE_DATE_TIME },
} as const satisfies RouteSchema;

/** `scim/tokens.response`. */
export const tokensResponse = {
  $id: 'scim/tokens.response',
  type: 'object',
  additionalProperties: false,
  required: ['tokens'],
  properties: { tokens: { type: 'array', items: schemaRef(token) } },
} as const satisfies RouteSchema;

/** `scim/token-created.response`: the token and its `value`, shown once. */
export const tokenCreatedResponse = {
  $id: 'scim/token-created.response',
  type: 'object',
  additionalProperties: false,
  required: [...token.required, 'value'],
  properties: { ...token.properties, value: { type: 'string', pattern: '^scim_', description: 'The bearer value, shown this once.' } },
} as const satisfies RouteSchema;

/** `scim/Resource`: a SCIM resource or message (`schemas` names what it is). @see docs/api/scim.md */
export const scimResource = {
  $id: 'scim/Resource',
  type: 'object',
  required: ['schemas'],
  properties: { schemas: { type: 'array', items: { type: 'string' }, minItems: 1 } },
} as const satisfies RouteSchema;
