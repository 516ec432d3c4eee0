import type { Knex } from 'knex';
import { teamsErrors } from './errors.ts';
import { peopleOf, type Person } from './people.ts';
import type { TeamRow } from './records.ts';

/** A team on the wire. @see docs/api/teams.md "The team object" */
export interface TeamDto {
  TeamId: string;
  Name: string;
  Kind: string | null;
  LeadConnectedId: string | null;
  ParentTeamId: string | null;
  /** Members who still belong to the organization. */
  MemberCount: number;
  CreatedAt: string;
  UpdatedAt: string;
}

/** The wire form of a team row. */
export function teamDto(row: TeamRow, memberCount: number): TeamDto {
  return {
    TeamId: row.id, Name: row.name, Kind: row.kind, LeadConnectedId: row.leadConnectedId, ParentTeamId: row.parentTeamId,
    MemberCount: memberCount, CreatedAt: new Date(row.createdAt).toISOString(), UpdatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/**
 * Team `id` of `orgId` (never the board: it is not a team).
 * @throws 404 `TEAM_NOT_FOUND` (with `field` when the body named it)
 */
export async function findTeam(db: Knex | Knex.Transaction, orgId: string, id: string, field?: string): Promise<TeamRow> {
  const row = (await db('teams.teams').where({ orgId, id, groupKind: 'Team' }).first()) as TeamRow | undefined;
  if (!row) throw teamsErrors.teamNotFound(field);
  return row;
}

/**
 * The active member `id` of `orgId`.
 * @throws 404 `MEMBER_NOT_FOUND` (unknown, another organization's, revoked) with `field`, 409 `MEMBER_NOT_ACTIVE` (suspended)
 */
export async function activeMember(db: Knex | Knex.Transaction, orgId: string, id: string, field: string): Promise<Person> {
  const person = (await peopleOf(db, orgId, [id])).get(id);
  if (!person) throw teamsErrors.memberNotFound(field);
  if (person.Status !== 'active') throw teamsErrors.memberNotActive(person.Status);
  return person;
}

/** Member counts of `teamIds` (people who still belong to the organization). */
export async function memberCounts(db: Knex | Knex.Transaction, orgId: string, teamIds: readonly string[]): Promise<Map<string, number>> {
  if (teamIds.length === 0) return new Map();
  const rows = (await db('teams.edges as e')
    .join('orgs.member_directory as d', function () {
      this.on('d.membershipId', '=', 'e.sourceId').andOn('d.orgId', '=', 'e.orgId');
    })
    .where({ 'e.orgId': orgId, 'e.type': 'member_of' }).whereIn('e.targetId', teamIds).whereIn('d.status', ['active', 'suspended'])
    .groupBy('e.targetId').select('e.targetId').count({ n: '*' })) as Array<{ targetId: string; n: number | string }>;
  return new Map(rows.map((r) => [r.targetId, Number(r.n)]));
}
