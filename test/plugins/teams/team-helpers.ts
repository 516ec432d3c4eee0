import type { TestAerie, TestResponse } from '../../helpers/harness.ts';
import { joinOrg } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';

/** An organization with its owner's token and members by short name (membership ids). */
export interface PeopleOrg {
  slug: string;
  id: string;
  owner: string;
  ownerId: string;
  ids: Record<string, string>;
  tokens: Record<string, string>;
}

/**
 * Creates organization `slug` owned by `ownerToken` and joins `names` as members
 * (`{name}@{slug}.test`).
 */
export async function orgWithPeople(
  aerie: TestAerie, ownerToken: string, slug: string, names: string[], type: 'Standard' | 'Corporation' | 'Project' = 'Standard',
): Promise<PeopleOrg> {
  const id = await createOrg(aerie, ownerToken, slug, type);
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  for (const name of names) {
    const joined = await joinOrg(aerie, ownerToken, slug, `${name}@${slug}.test`, 'ORG_FREELANCER');
    ids[name] = joined.id;
    tokens[name] = joined.token;
  }
  const [{ id: ownerId }] = await aerie.sql('select m.id from orgs.memberships m where m.org_id = ? and m.role = ?', [id, 'Owner']);
  return { slug, id, owner: ownerToken, ownerId, ids, tokens };
}

/** `POST /api/org/{slug}/teams`; throws unless 201. */
export async function createTeam(aerie: TestAerie, org: PeopleOrg, body: Record<string, unknown>): Promise<string> {
  const res = await aerie.request('POST', `/api/org/${org.slug}/teams`, { token: org.owner, body });
  if (res.status !== 201) throw new Error(`create team: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.TeamId as string;
}

/** `POST /api/org/{slug}/teams/{teamId}/members`. */
export function addMember(aerie: TestAerie, org: PeopleOrg, teamId: string, ConnectedIdId: string, Resolution?: string): Promise<TestResponse> {
  return aerie.request('POST', `/api/org/${org.slug}/teams/${teamId}/members`, { token: org.owner, body: { ConnectedIdId, ...(Resolution ? { Resolution } : {}) } });
}

/** `POST /api/org/{slug}/relationships`. */
export function relate(aerie: TestAerie, org: PeopleOrg, source: string, target: string, Type = 'reporting'): Promise<TestResponse> {
  return aerie.request('POST', `/api/org/${org.slug}/relationships`, { token: org.owner, body: { SourceConnectedId: source, TargetConnectedId: target, Type } });
}

/** The organization's reporting edges as `source>target[@team]` strings, sorted (from the database). */
export async function reportingEdges(aerie: TestAerie, org: PeopleOrg): Promise<string[]> {
  const names = new Map(Object.entries(org.ids).map(([n, i]) => [i, n]));
  names.set(org.ownerId, 'owner');
  const rows = await aerie.sql("select source_id, target_id, derived_from_team_id from teams.edges where org_id = ? and type = 'reporting'", [org.id]);
  return rows.map((r) => `${names.get(r.source_id) ?? r.source_id}>${names.get(r.target_id) ?? r.target_id}${r.derived_from_team_id ? '@auto' : ''}`).sort();
}
