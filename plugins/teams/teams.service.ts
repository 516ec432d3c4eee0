import { randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { teamsErrors } from './errors.ts';
import { resyncTeam, resyncWithChildren } from './graph-writes.ts';
import { lockOrgGraph } from './org-lock.ts';
import type { TeamRow } from './records.ts';
import { activeMember, findTeam, memberCounts, teamDto, type TeamDto } from './team-records.ts';

/** `POST /teams` body. */
export interface CreateTeamInput {
  Name: string;
  Kind?: string | null;
  LeadConnectedId?: string | null;
  ParentTeamId?: string | null;
}

/** `PATCH /teams/{teamId}` body: only the members sent change. */
export interface UpdateTeamInput {
  Name?: string;
  Kind?: string | null;
  ParentTeamId?: string | null;
}

/**
 * `teams.teams`: the organization's teams (never the board) — list, create, change, set or clear
 * the lead. Every change runs under the organization's graph lock, re-syncs the automatic
 * reporting edges it affects and appends its audit event in the same transaction.
 * @see docs/api/teams.md
 */
@injectable()
export class TeamsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Teams of `orgId`, oldest first; the board is not among them. */
  async list(orgId: string): Promise<TeamDto[]> {
    const rows = (await this.db.knex('teams.teams').where({ orgId, groupKind: 'Team' }).orderBy([{ column: 'createdAt' }, { column: 'id' }])) as TeamRow[];
    const counts = await memberCounts(this.db.knex, orgId, rows.map((r) => r.id));
    return rows.map((r) => teamDto(r, counts.get(r.id) ?? 0));
  }

  /**
   * Creates a team; with a lead who reports to the parent team's lead (automatic edge).
   * @throws 404 `TEAM_NOT_FOUND` (`ParentTeamId`), 404 `MEMBER_NOT_FOUND` / 409 `MEMBER_NOT_ACTIVE` (lead), 409 `REPORTING_CYCLE`
   */
  async create(orgId: string, input: CreateTeamInput): Promise<TeamDto> {
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      if (input.ParentTeamId) await findTeam(trx, orgId, input.ParentTeamId, 'ParentTeamId');
      if (input.LeadConnectedId) await activeMember(trx, orgId, input.LeadConnectedId, 'LeadConnectedId');
      const now = this.clock.now();
      const [row] = (await trx('teams.teams').insert({
        id: randomUUID(), orgId, groupKind: 'Team', name: input.Name.trim(), kind: input.Kind?.trim() || null,
        leadConnectedId: input.LeadConnectedId ?? null, parentTeamId: input.ParentTeamId ?? null, createdAt: now, updatedAt: now,
      }).returning('*')) as TeamRow[];
      const synced = await resyncTeam(trx, orgId, row.id, now);
      await this.audit.append(trx, {
        orgId, eventType: 'org.team.created',
        businessData: { teamId: row.id, name: row.name, kind: row.kind, leadConnectedId: row.leadConnectedId, parentTeamId: row.parentTeamId, derivedAdded: synced.added.length },
      });
      return teamDto(row, 0);
    });
  }

  /**
   * Renames a team, changes its kind or moves it under another parent (`null`: top level); a move
   * re-syncs the lead's automatic edge to the new parent's lead.
   * @throws 404 `TEAM_NOT_FOUND`, 409 `TEAM_PARENT_CYCLE` with `path`, 409 `REPORTING_CYCLE`
   */
  async update(orgId: string, teamId: string, patch: UpdateTeamInput): Promise<TeamDto> {
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      const team = await findTeam(trx, orgId, teamId);
      const changes: Partial<TeamRow> = {};
      if (patch.Name !== undefined) changes.name = patch.Name.trim();
      if (patch.Kind !== undefined) changes.kind = patch.Kind?.trim() || null;
      if (patch.ParentTeamId !== undefined && patch.ParentTeamId !== team.parentTeamId) {
        if (patch.ParentTeamId !== null) await this.assertNoParentCycle(trx, orgId, teamId, patch.ParentTeamId);
        changes.parentTeamId = patch.ParentTeamId;
      }
      if (Object.keys(changes).length === 0) return teamDto(team, (await memberCounts(trx, orgId, [teamId])).get(teamId) ?? 0);
      const now = this.clock.now();
      const [row] = (await trx('teams.teams').where({ orgId, id: teamId }).update({ ...changes, updatedAt: now }).returning('*')) as TeamRow[];
      const synced = 'parentTeamId' in changes ? await resyncTeam(trx, orgId, teamId, now) : { added: [], removed: [] };
      await this.audit.append(trx, {
        orgId, eventType: 'org.team.updated',
        businessData: { teamId, changed: Object.keys(changes), ...changes, derivedAdded: synced.added.length, derivedRemoved: synced.removed.length },
      });
      return teamDto(row, (await memberCounts(trx, orgId, [teamId])).get(teamId) ?? 0);
    });
  }

  /**
   * Sets (or, with `null`, clears) a team's lead and re-syncs the automatic reporting edges of the
   * team and its direct sub-teams — only edges with `DerivedFromTeamId`; manual ones stay.
   * Emits `reporting.team.lead_changed` when the lead changed.
   * @throws 404 `TEAM_NOT_FOUND`, 404 `MEMBER_NOT_FOUND` / 409 `MEMBER_NOT_ACTIVE`, 409 `REPORTING_CYCLE`
   */
  async setLead(orgId: string, teamId: string, leadConnectedId: string | null): Promise<TeamDto> {
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      const team = await findTeam(trx, orgId, teamId);
      if (leadConnectedId) await activeMember(trx, orgId, leadConnectedId, 'LeadConnectedId');
      const count = async () => (await memberCounts(trx, orgId, [teamId])).get(teamId) ?? 0;
      if (team.leadConnectedId === leadConnectedId) return teamDto(team, await count());
      const now = this.clock.now();
      const [row] = (await trx('teams.teams').where({ orgId, id: teamId }).update({ leadConnectedId, updatedAt: now }).returning('*')) as TeamRow[];
      const synced = await resyncWithChildren(trx, orgId, teamId, now);
      await this.audit.append(trx, {
        orgId, eventType: 'reporting.team.lead_changed',
        businessData: {
          teamId, previousLeadConnectedId: team.leadConnectedId, leadConnectedId,
          derivedAdded: synced.added.length, derivedRemoved: synced.removed.length,
        },
      });
      return teamDto(row, await count());
    });
  }

  private async assertNoParentCycle(trx: Parameters<typeof findTeam>[0], orgId: string, teamId: string, parentId: string): Promise<void> {
    const path = [teamId];
    let at: TeamRow | undefined = await findTeam(trx, orgId, parentId, 'ParentTeamId');
    while (at) {
      path.push(at.id);
      if (at.id === teamId) throw teamsErrors.parentCycle(path);
      at = at.parentTeamId ? ((await trx('teams.teams').where({ orgId, id: at.parentTeamId }).first()) as TeamRow | undefined) : undefined;
    }
  }
}
