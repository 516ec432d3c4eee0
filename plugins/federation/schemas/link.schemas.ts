import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, type RouteSchema } from '../../../core/index.ts';

/** Seal purpose of linking an IdP identity to one's Aerie account; the subject is the organization's slug. */
export const LINK_SEAL_PURPOSE = 'federation.identity.link';

/** JSON Schema `federation/link.body`: `{orgSlug, SealAssertionJson}`. @see docs/api/federation.md "Linking an Aerie account" */
export const linkBody = {
  $id: 'federation/link.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: {
    orgSlug: { type: 'string', minLength: 1, maxLength: 39 },
    SealAssertionJson: { type: 'string', maxLength: 20000, description: `A passkey seal for purpose \`${LINK_SEAL_PURPOSE}\`, subject the organization's slug.` },
  },
} as const satisfies RouteSchema;

/** JSON Schema `federation/link-id.params`. */
export const linkIdParams = {
  $id: 'federation/link-id.params',
  type: 'object',
  required: ['linkId'],
  properties: { linkId: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** `federation/link-started.response` (201): where to send the browser. */
export const linkStartedResponse = {
  $id: 'federation/link-started.response',
  type: 'object',
  additionalProperties: false,
  required: ['location', 'expiresInSeconds'],
  properties: {
    location: { type: 'string', description: "The identity provider's sign-in URL: send the browser there (the flow cookie is set)." },
    expiresInSeconds: { type: 'integer', description: 'How long the flow may take, in seconds.' },
  },
} as const satisfies RouteSchema;

/** `federation/links.response`: the signed-in account's links. */
export const linksResponse = {
  $id: 'federation/links.response',
  type: 'object',
  additionalProperties: false,
  required: ['links'],
  properties: {
    links: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'organization', 'issuer', 'email', 'createdAt', 'lastUsedAt'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          organization: {
            anyOf: [{ type: 'null' }, { type: 'object', additionalProperties: false, required: ['id', 'slug', 'name'], properties: { id: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } } }],
          },
          issuer: { type: 'string', description: 'The OpenID issuer or SAML IdP entity id.' },
          email: NULLABLE_STRING,
          createdAt: DATE_TIME,
          lastUsedAt: NULLABLE_DATE_TIME,
        },
      },
    },
  },
} as const satisfies RouteSchema;
