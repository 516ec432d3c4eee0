import type { ResourceSchema } from './filter/resource-schema.ts';

export const USER_SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_RESPONSE_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The rows a User is read from: the member directory `d` and what the identity provider set, `s`. */
export const USER_FROM = 'orgs.member_directory as d';
export const USER_ATTRIBUTES_JOIN = ['scim.user_attributes as s', 's.membership_id', 'd.membership_id'] as const;

/**
 * SCIM User attributes over `orgs.member_directory` (alias `d`) and `scim.user_attributes` (alias
 * `s`): a User is a membership of the organization; `id` is the membership id, `userName` and the
 * one work email the account's email, `active` is an active membership; `displayName` is the one
 * the identity provider set, else the account's. @see docs/api/scim.md "Users"
 */
export const userFilterSchema: ResourceSchema = {
  coreUrn: USER_SCHEMA_URN,
  attributes: {
    id: { type: 'string', sql: 'd.membership_id::text', caseExact: true },
    userName: { type: 'string', sql: 'd.email' },
    displayName: { type: 'string', sql: 'COALESCE(s.display_name, d.display_name)' },
    externalId: { type: 'string', sql: 's.external_id', caseExact: true },
    name: { type: 'complex', sub: { givenName: { type: 'string', sql: 's.given_name' }, familyName: { type: 'string', sql: 's.family_name' } } },
    active: { type: 'boolean', sql: "(d.status = 'active')" },
    emails: {
      type: 'multi',
      elements: "jsonb_build_array(jsonb_build_object('value', d.email, 'type', 'work', 'primary', true))",
      sub: { value: { type: 'string' }, type: { type: 'string' }, primary: { type: 'boolean' } },
    },
    meta: {
      type: 'complex',
      sub: { created: { type: 'dateTime', sql: 'd.created_at' }, lastModified: { type: 'dateTime', sql: 'd.updated_at' } },
    },
  },
};
