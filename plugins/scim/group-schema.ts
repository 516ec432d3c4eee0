import type { ResourceSchema } from './filter/resource-schema.ts';

export const GROUP_SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** The rows a Group is read from: rbac's published role directory `g` and what the identity provider set, `ga`. */
export const GROUP_FROM = 'rbac.role_directory as g';
export const GROUP_ATTRIBUTES_JOIN = ['scim.group_attributes as ga', 'ga.role_id', 'g.role_id'] as const;
/** Role keys kept for agent badges: agents never appear in SCIM. */
export const AGENT_ROLE_KEYS = 'AGENT\\_%';

/**
 * A Group's members as rows: its holders in rbac's `role_holders`, through the `(role_id,
 * membership_id)` index. Revoking or deleting a membership drops its assignments in the same
 * transaction (docs/api/members.md), so every holder is a User.
 */
const MEMBER_ROWS = {
  sql: 'SELECT 1 FROM rbac.role_holders h WHERE h.role_id = g.role_id AND h.org_id = g.org_id',
  columns: { value: 'h.membership_id::text', type: "'User'::text" },
};

/**
 * SCIM Group attributes over `rbac.role_directory` (alias `g`) and `scim.group_attributes` (alias
 * `ga`): a Group is a role of the organization; `id` is the role id, `displayName` its name,
 * `members` the Users holding it (`members.value` is the User id, case-exact).
 * @see docs/api/scim.md "Groups"
 */
export const groupFilterSchema: ResourceSchema = {
  coreUrn: GROUP_SCHEMA_URN,
  attributes: {
    id: { type: 'string', sql: 'g.role_id::text', caseExact: true },
    displayName: { type: 'string', sql: 'g.name' },
    externalId: { type: 'string', sql: 'ga.external_id', caseExact: true },
    members: { type: 'multi', rows: MEMBER_ROWS, sub: { value: { type: 'string', caseExact: true }, type: { type: 'string' } } },
    meta: {
      type: 'complex',
      sub: { created: { type: 'dateTime', sql: 'g.created_at' }, lastModified: { type: 'dateTime', sql: 'g.updated_at' } },
    },
  },
};
