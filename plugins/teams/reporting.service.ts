import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import type { ManagerChanged } from '../members/api.ts';
import type { ManagerInChain, ReportingLines } from './api.ts';
import { teamsErrors } from './errors.ts';
import { insertEdge } from './graph-writes.ts';
import { lockOrgGraph } from './org-lock.ts';
import { peopleOf, type Person } from './people.ts';
import { edgeDto, type EdgeDto, type EdgeRow, type TeamRow } from './records.ts';
import { activeMember, memberCounts, teamDto, type TeamDto } from './team-records.ts';

/** `GET /reporting/graph` answer. @see docs/api/teams.md "The reporting graph" */
export interface GraphDto {
  People: Person[];
  Teams: TeamDto[];
  Edges: EdgeDto[];
}

/** `POST /relationships` body. */
export interface RelationshipInput {
  SourceConnectedId: string;
  TargetConnectedId: string;
  Type: 'reporting' | 'reference';
}

/**
 * `teams.reporting`: the reporting graph (people, teams, `member_of`, `reporting`, `reference`
 * edges), manual relationships with cycle detection under the organization's graph lock, and the
 * reporting lines other plugins resolve approvers on ({@link ReportingLines}).
 * @see docs/api/teams.md
 */
@injectable()
export class ReportingService implements ReportingLines {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /**
   * The organization's graph: people who still belong to it, teams (never the board) and every
   * edge between them (edges to people who left, and the board's roster, are left out).
   */
  async graph(orgId: string): Promise<GraphDto> {
    const knex = this.db.knex;
    const people = await peopleOf(knex, orgId);
    const teams = (await knex('teams.teams').where({ orgId, groupKind: 'Team' }).orderBy([{ column: 'createdAt' }, { column: 'id' }])) as TeamRow[];
    const counts = await memberCounts(knex, orgId, teams.map((t) => t.id));
    const teamIds = new Set(teams.map((t) => t.id));
    const edges = (await knex('teams.edges').where({ orgId }).orderBy([{ column: 'createdAt' }, { column: 'id' }])) as EdgeRow[];
    const shown = edges.filter((e) => people.has(e.sourceId) && (e.type === 'member_of' ? teamIds.has(e.targetId) : people.has(e.targetId)));
    return { People: [...people.values()], Teams: teams.map((t) => teamDto(t, counts.get(t.id) ?? 0)), Edges: shown.map(edgeDto) };
  }

  /**
   * Adds a manual `reporting` (source reports to target) or `reference` (dotted line) edge between
   * two active members. A reporting edge that would close a cycle is refused with the cycle's path.
   * @throws 400 `VALIDATION_FAILED` (self), 404 `MEMBER_NOT_FOUND` / 409 `MEMBER_NOT_ACTIVE` (`field`),
   *   409 `RELATIONSHIP_EXISTS`, 409 `REPORTING_CYCLE` with `path`
   */
  async relate(orgId: string, input: RelationshipInput): Promise<EdgeDto> {
    if (input.SourceConnectedId === input.TargetConnectedId) throw teamsErrors.selfRelationship();
    return this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      await activeMember(trx, orgId, input.SourceConnectedId, 'SourceConnectedId');
      await activeMember(trx, orgId, input.TargetConnectedId, 'TargetConnectedId');
      const key = { orgId, sourceId: input.SourceConnectedId, targetId: input.TargetConnectedId, type: input.Type };
      if (await trx('teams.edges').where(key).whereNull('derivedFromTeamId').first()) throw teamsErrors.relationshipExists();
      const row = await insertEdge(trx, this.clock.now(), key);
      await this.audit.append(trx, {
        orgId, eventType: 'reporting.relationship.created', businessData: { sourceConnectedId: row.sourceId, targetConnectedId: row.targetId, type: row.type },
      });
      return edgeDto(row);
    });
  }

  /**
   * Deletes a manual edge. Automatic reporting edges follow team membership and leads and are not
   * deleted here.
   * @throws 404 `NOT_FOUND`, 409 `RELATIONSHIP_DERIVED` with `teamIds`
   */
  async unrelate(orgId: string, input: { sourceId: string; targetId: string; type: 'reporting' | 'reference' }): Promise<void> {
    await this.db.transaction(async (trx) => {
      await lockOrgGraph(trx, orgId);
      const rows = (await trx('teams.edges').where({ orgId, sourceId: input.sourceId, targetId: input.targetId, type: input.type })) as EdgeRow[];
      const manual = rows.find((r) => r.derivedFromTeamId === null);
      if (!manual) {
        if (rows.length > 0) throw teamsErrors.relationshipDerived(rows.map((r) => r.derivedFromTeamId!).sort());
        throw teamsErrors.relationshipNotFound();
      }
      await trx('teams.edges').where({ orgId, id: manual.id }).delete();
      await this.audit.append(trx, {
        orgId, eventType: 'reporting.relationship.deleted', businessData: { sourceConnectedId: input.sourceId, targetConnectedId: input.targetId, type: input.type },
      });
    });
  }

  /**
   * Keeps a member's manual `reporting` edge in step with the reporting manager on their member
   * profile (set by an invitation or `PATCH /members/{id}`), inside the members plugin's
   * transaction: the edge to the previous manager goes, one to the new manager comes (unless a
   * manual one is already there). Audited like `POST|DELETE /relationships`, with `via: 'member_profile'`.
   * @throws 409 `REPORTING_CYCLE` with `path` (the member change is refused as a whole)
   * @see docs/api/teams.md "A manager set on a member"
   */
  async followManager(event: ManagerChanged, trx: Knex.Transaction): Promise<void> {
    const { orgId, connectedIdId: sourceId } = event;
    await lockOrgGraph(trx, orgId);
    const manual = { orgId, sourceId, type: 'reporting' as const };
    if (event.previousManagerId) {
      const gone = await trx('teams.edges').where({ ...manual, targetId: event.previousManagerId }).whereNull('derivedFromTeamId').delete().returning('id');
      if (gone.length > 0) {
        await this.audit.append(trx, {
          orgId, eventType: 'reporting.relationship.deleted', businessData: { sourceConnectedId: sourceId, targetConnectedId: event.previousManagerId, type: 'reporting', via: 'member_profile' },
        });
      }
    }
    if (!event.managerId) return;
    if (await trx('teams.edges').where({ ...manual, targetId: event.managerId }).whereNull('derivedFromTeamId').first()) return;
    await insertEdge(trx, this.clock.now(), { ...manual, targetId: event.managerId });
    await this.audit.append(trx, {
      orgId, eventType: 'reporting.relationship.created', businessData: { sourceConnectedId: sourceId, targetConnectedId: event.managerId, type: 'reporting', via: 'member_profile' },
    });
  }

  /** {@inheritDoc ReportingLines.managersChain} */
  async managersChain(orgId: string, connectedId: string, trx?: Knex.Transaction): Promise<ManagerInChain[]> {
    const db = trx ?? this.db.knex;
    const edges = (await db('teams.edges').where({ orgId, type: 'reporting' }).select('sourceId', 'targetId')) as EdgeRow[];
    const up = new Map<string, string[]>();
    for (const e of edges) up.set(e.sourceId, [...(up.get(e.sourceId) ?? []), e.targetId]);
    const depthOf = new Map<string, number>([[connectedId, 0]]);
    const queue = [connectedId];
    for (let i = 0; i < queue.length; i++) {
      for (const next of up.get(queue[i]) ?? []) {
        if (depthOf.has(next)) continue;
        depthOf.set(next, depthOf.get(queue[i])! + 1);
        queue.push(next);
      }
    }
    depthOf.delete(connectedId);
    const people = await peopleOf(db, orgId, [...depthOf.keys()]);
    return [...depthOf.entries()]
      .filter(([id]) => people.get(id)?.Status === 'active')
      .map(([id, depth]) => ({ connectedIdId: id, depth }))
      .sort((a, b) => a.depth - b.depth || (a.connectedIdId < b.connectedIdId ? -1 : 1));
  }
}
