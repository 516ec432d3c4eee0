import type { ResourceSchema } from './filter/resource-schema.ts';

export const USER_SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_RESPONSE_URN = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The rows a User is read from: the member directory `d` and what the identity provider set, `s`. */
export const USER_FROM = 'orgs.member_directory as d';
export const USER_ATTRIBUTES_JOIN = ['scim.user_attributes as s', 's.membership_id', 'd.membership_id'] as const;

/**
 * A User's `userName`: what the identity provider sent, else (a member it never provisioned) the
 * account's email. Reads only the member directory `d`, so any query over it can filter on it.
 */
export const USER_NAME_SQL = 'COALESCE((SELECT ua.user_name FROM scim.user_attributes ua WHERE ua.membership_id = d.membership_id), d.email)';

/**
 * `lower(userName) = ?`, as indexes serve it (both `?` are the lower-cased value): the memberships
 * whose stored `userName` matches (the `lower(user_name)` index) and those without one whose
 * email matches (the email index) — never a scan of the organization's members.
 */
export const USER_NAME_EQ_SQL = `d.membership_id IN (
  SELECT ua.membership_id FROM scim.user_attributes ua WHERE lower(ua.user_name) = ?
  UNION ALL
  SELECT dm.membership_id FROM orgs.member_directory dm WHERE lower(dm.email) = ?
    AND NOT EXISTS (SELECT 1 FROM scim.user_attributes ub WHERE ub.membership_id = dm.membership_id AND ub.user_name IS NOT NULL))`;

/**
 * SCIM User attributes over `orgs.member_directory` (alias `d`) and `scim.user_attributes` (alias
 * `s`): a User is a membership of the organization; `id` is the membership id, `userName` the one
 * the identity provider sent (else the account's email), the one work email the account's email,
 * `active` is an active membership; `displayName` is the one the identity provider set, else the
 * account's; `name.*` what the identity provider set. @see docs/api/scim.md "Users"
 */
export const userFilterSchema: ResourceSchema = {
  coreUrn: USER_SCHEMA_URN,
  attributes: {
    id: { type: 'string', sql: 'd.membership_id::text', caseExact: true },
    userName: { type: 'string', sql: USER_NAME_SQL, eqSql: USER_NAME_EQ_SQL },
    displayName: { type: 'string', sql: 'COALESCE(s.display_name, d.display_name)' },
    externalId: { type: 'string', sql: 's.external_id', caseExact: true },
    name: {
      type: 'complex',
      sub: {
        formatted: { type: 'string', sql: 's.formatted_name' }, familyName: { type: 'string', sql: 's.family_name' },
        givenName: { type: 'string', sql: 's.given_name' }, middleName: { type: 'string', sql: 's.middle_name' },
        honorificPrefix: { type: 'string', sql: 's.honorific_prefix' }, honorificSuffix: { type: 'string', sql: 's.honorific_suffix' },
      },
    },
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
