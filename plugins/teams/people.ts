import type { Knex } from 'knex';

/** A person of the organization as the teams pages show them. */
export interface Person {
  ConnectedIdId: string;
  /** The display name, or the email address when the account has none. */
  Name: string;
  Email: string;
  Status: 'active' | 'suspended';
}

interface DirectoryRow {
  membershipId: string;
  email: string;
  displayName: string | null;
  status: string;
}

/**
 * People of `orgId` who still belong to it (active or suspended; revoked and deleted memberships
 * are left out, and so are edges that point at them), from the orgs plugin's published read
 * contract `orgs.member_directory`; only `ids` when given.
 * @see docs/plugins.md "Reading members in SQL"
 */
export async function peopleOf(db: Knex | Knex.Transaction, orgId: string, ids?: readonly string[]): Promise<Map<string, Person>> {
  if (ids && ids.length === 0) return new Map();
  const q = db('orgs.member_directory').where({ orgId }).whereIn('status', ['active', 'suspended'])
    .select('membershipId', 'email', 'displayName', 'status').orderBy([{ column: 'createdAt' }, { column: 'membershipId' }]);
  if (ids) q.whereIn('membershipId', [...new Set(ids)]);
  const rows = (await q) as DirectoryRow[];
  return new Map(rows.map((r) => [r.membershipId, {
    ConnectedIdId: r.membershipId, Name: r.displayName || r.email, Email: r.email, Status: r.status as Person['Status'],
  }]));
}
