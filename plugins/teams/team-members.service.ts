import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { teamsErrors } from './errors.ts';
import { insertEdge, resyncTeam } from './graph-writes.ts';
import { lockOrgGraph } from './org-lock.ts';
import { peopleOf } from './people.ts';
import type { EdgeRow, TeamRow } from './records.ts';
import { activeMember, findTeam } from './team-records.ts';

/** How the client settles a new member's existing managers. @see docs/api/teams.md "Adding a member" */
export type Resolution = 'add' | 'replace' | 'none';

/** A member of a team on the wire. */
export interface TeamMemberDto {
  ConnectedIdId: string;
  Name: string;
  Email: string;
  Status: 'active' | 'suspended';
  /** The team the membership is in (a sub-team's id with `includeSubTeams`). */
  TeamId: string;
  IsLead: boolean;
  /** Whether the member reports to the team's lead (false after `Resolution: none`). */
  ReportsToLead: boolean;
  JoinedAt: string;
}

/** A manager the new member already reports to. */
export interface ExistingManager {
  ConnectedIdId: string;
  Name: string;
  /** The team whose automatic edge it is, or null for a manual edge. */
  DerivedFromTeamId: string | null;
}

/** `POST /teams/{teamId}/members` answer. */
export type AddMemberResult =
  | { needsResolution: true; existingManagers: ExistingManager[] }
  | { needsResolution: false; member: TeamMemberDto; removedManagers: string[] };

/**
 * `teams.teamMembers`: who is in a team (`member_of` edges) and their automatic reporting line to
 * the lead. Changes run under the organization's graph lock with their audit event.
 * @see docs/api/teams.md
 */
@injectable()
export class TeamMembersService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /**
   * Members of a team (people who still belong to the organization), oldest first; with
   * `includeSubTeams` also the members of every team below it, each person once (nearest team first).
   * @throws 404 `TEAM_NOT_FOUND`
   */
  async list(orgId: string, teamId: string, includeSubTeams: boolean): Promise<TeamMemberDto[]> {
    const knex = this.db.knex;
    const root = await findTeam(knex, orgId, teamId);
    const teams: TeamRow[] = [root];
    if (includeSubTeams) {
      const all = (await knex('teams.teams').where({ orgId, groupKind: 'Team' })) as TeamRow[];
      for (let i = 0; i < teams.length; i++) teams.push(...all.filter((t) => t.parentTeamId === teams[i].id).sort((a, b) => (a.id < b.id ? -1 : 1)));
    }
    const edges = (await knex('teams.edges').where({ orgId, type: 'member_of' }).whereIn('targetId', teams.map((t) => t.id))
      .orderBy([{ column: 'createdAt' }, { column: 'id' }])) as EdgeRow[];
    const people = await peopleOf(knex, orgId, edges.map((e) => e.sourceId));
    const seen = new Set<string>();
    const out: TeamMemberDto[] = [];
    for (const team of teams) {
      for (const e of edges.filter((x) => x.targetId === team.id)) {
        const person = people.get(e.sourceId);
        if (!person || seen.has(e.sourceId)) continue;
        seen.add(e.sourceId);
        out.push({
          ...person, TeamId: team.id, IsLead: team.leadConnectedId === e.sourceId,
          ReportsToLead: e.reportingLine && team.leadConnectedId !== null && team.leadConnectedId !== e.sourceId, JoinedAt: new Date(e.createdAt).toISOString(),
        });
      }
    }
    return out;
  }

  /**
   * Adds a member. When the team has a lead and the person already reports to someone else, and no
   * `resolution` is given, nothing changes and the answer is `needsResolution` with
   * `existingManagers`. `add` keeps them, `replace` deletes the person's manual reporting edges
   * (automatic ones follow their own teams), `none` joins without a reporting line to the lead.
   * @throws 404 `TEAM_NOT_FOUND`, 404 `MEMBER_NOT_FOUND` / 409 `MEMBER_NOT_ACTIVE`, 409 `TEAM_MEMBER_EXISTS`, 409 `REPORTING_CYCLE`
   */
  async add(orgId: string, teamId: string, connectedIdId: string, resolution?: Resolution): Promise<AddMemberResult> {
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      const team = await findTeam(trx, orgId, teamId);
      const person = await activeMember(trx, orgId, connectedIdId, 'ConnectedIdId');
      if (await trx('teams.edges').where({ orgId, type: 'member_of', sourceId: connectedIdId, targetId: teamId }).first()) throw teamsErrors.teamMemberExists();
      const lead = team.leadConnectedId !== connectedIdId ? team.leadConnectedId : null;
      const reporting = (await trx('teams.edges').where({ orgId, type: 'reporting', sourceId: connectedIdId }).orderBy('createdAt')) as EdgeRow[];
      const others = reporting.filter((e) => e.targetId !== lead);
      if (lead && others.length > 0 && !resolution) {
        const names = await peopleOf(trx, orgId, others.map((e) => e.targetId));
        const existingManagers = others.filter((e) => names.has(e.targetId))
          .map((e) => ({ ConnectedIdId: e.targetId, Name: names.get(e.targetId)!.Name, DerivedFromTeamId: e.derivedFromTeamId }));
        if (existingManagers.length > 0) return { needsResolution: true as const, existingManagers };
      }
      const now = this.clock.now();
      const replaced = lead && resolution === 'replace' ? others.filter((e) => e.derivedFromTeamId === null) : [];
      if (replaced.length > 0) await trx('teams.edges').where({ orgId }).whereIn('id', replaced.map((e) => e.id)).delete();
      const edge = await insertEdge(trx, now, { orgId, sourceId: connectedIdId, targetId: teamId, type: 'member_of', reportingLine: resolution !== 'none' });
      const synced = await resyncTeam(trx, orgId, teamId, now);
      await this.audit.append(trx, {
        orgId, eventType: 'org.team.member_added',
        businessData: {
          teamId, connectedIdId, resolution: resolution ?? null, reportsToLead: edge.reportingLine,
          removedManagers: replaced.map((e) => e.targetId), derivedAdded: synced.added.length,
        },
      });
      return {
        needsResolution: false as const, removedManagers: replaced.map((e) => e.targetId),
        member: {
          ...person, TeamId: teamId, IsLead: team.leadConnectedId === connectedIdId, ReportsToLead: edge.reportingLine && lead !== null,
          JoinedAt: new Date(edge.createdAt).toISOString(),
        },
      };
    });
  }

  /**
   * Removes a member from a team and their automatic reporting edge to its lead.
   * @throws 404 `TEAM_NOT_FOUND`, 404 `NOT_FOUND` (not a member of the team)
   */
  async remove(orgId: string, teamId: string, connectedIdId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      await findTeam(trx, orgId, teamId);
      const deleted = await trx('teams.edges').where({ orgId, type: 'member_of', sourceId: connectedIdId, targetId: teamId }).delete().returning('id');
      if (deleted.length === 0) throw teamsErrors.teamMemberNotFound();
      const synced = await resyncTeam(trx, orgId, teamId, this.clock.now());
      await this.audit.append(trx, {
        orgId, eventType: 'org.team.member_removed', businessData: { teamId, connectedIdId, derivedRemoved: synced.removed.length },
      });
    });
  }
}
