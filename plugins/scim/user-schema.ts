import type { ResourceSchema } from './filter/resource-schema.ts';

export const USER_SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_RESPONSE_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * SCIM User attributes over `orgs.member_directory` (alias `d`): a User is a membership of the
 * organization; `id` is the membership id, `userName` and the one work email the account's email,
 * `active` is an active membership. @see docs/api/scim.md "Users"
 */
export const userFilterSchema: ResourceSchema = {
  coreUrn: USER_SCHEMA_URN,
  attributes: {
    id: { type: 'string', sql: 'd.membership_id::text', caseExact: true },
    userName: { type: 'string', sql: 'd.email' },
    displayName: { type: 'string', sql: 'd.display_name' },
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
