import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { addReporting, findCycle, indexReporting, type ReportingIndex } from './cycles.ts';
import { teamsErrors } from './errors.ts';
import { peopleOf } from './people.ts';
import type { EdgeRow, EdgeType, TeamRow } from './records.ts';

/** What a re-sync changed: the automatic reporting edges added and removed, as `[source, target]`. */
export interface ResyncResult {
  added: Array<[string, string]>;
  removed: Array<[string, string]>;
}

/** The organization's reporting edges, indexed for cycle checks (read under the graph lock). */
export async function loadReporting(trx: Knex.Transaction, orgId: string): Promise<ReportingIndex> {
  const pairs = (await trx('teams.edges').where({ orgId, type: 'reporting' }).select('sourceId', 'targetId')) as EdgeRow[];
  return indexReporting(pairs.map((p) => [p.sourceId, p.targetId] as const));
}

/**
 * Inserts one edge. A `reporting` edge is refused when it would close a cycle with the
 * organization's reporting edges (`index`, loaded when not given and kept up to date when given,
 * so a batch of inserts reads the edges once). The caller holds the organization's graph lock
 * (`lockOrgGraph`).
 * @throws 409 `REPORTING_CYCLE` with `path`
 */
export async function insertEdge(
  trx: Knex.Transaction, now: Date,
  edge: { orgId: string; sourceId: string; targetId: string; type: EdgeType; derivedFromTeamId?: string | null; reportingLine?: boolean; sharePercent?: number | null },
  index?: ReportingIndex,
): Promise<EdgeRow> {
  if (edge.type === 'reporting') {
    const up = index ?? await loadReporting(trx, edge.orgId);
    const cycle = findCycle(up, edge.sourceId, edge.targetId);
    if (cycle) throw teamsErrors.reportingCycle(cycle);
    addReporting(up, edge.sourceId, edge.targetId);
  }
  const [row] = (await trx('teams.edges').insert({
    id: randomUUID(), orgId: edge.orgId, sourceId: edge.sourceId, targetId: edge.targetId, type: edge.type,
    derivedFromTeamId: edge.derivedFromTeamId ?? null, reportingLine: edge.reportingLine ?? true, sharePercent: edge.sharePercent ?? null, createdAt: now,
  }).returning('*')) as EdgeRow[];
  return row;
}

/**
 * Re-syncs the automatic reporting edges of one team (those with `DerivedFromTeamId` = the team;
 * no other edge is touched): each member with a reporting line reports to the lead, and the lead
 * reports to the parent team's lead. The board has none. Members and leads who left the
 * organization are skipped. The caller holds the organization's graph lock.
 * @throws 409 `REPORTING_CYCLE` when an automatic edge would close a cycle
 * @see docs/api/teams.md "Automatic reporting lines"
 */
export async function resyncTeam(trx: Knex.Transaction, orgId: string, teamId: string, now: Date): Promise<ResyncResult> {
  const team = (await trx('teams.teams').where({ orgId, id: teamId }).first()) as TeamRow | undefined;
  const wanted = new Map<string, [string, string]>();
  if (team && team.groupKind === 'Team' && team.leadConnectedId) {
    const lead = team.leadConnectedId;
    const members = (await trx('teams.edges').where({ orgId, type: 'member_of', targetId: teamId, reportingLine: true }).select('sourceId')) as EdgeRow[];
    const parent = team.parentTeamId ? ((await trx('teams.teams').where({ orgId, id: team.parentTeamId }).first()) as TeamRow | undefined) : undefined;
    const candidates: Array<[string, string]> = members.map((m) => [m.sourceId, lead]);
    if (parent?.leadConnectedId) candidates.push([lead, parent.leadConnectedId]);
    const present = await peopleOf(trx, orgId, candidates.flat());
    for (const [s, t] of candidates) if (s !== t && present.has(s) && present.has(t)) wanted.set(`${s}>${t}`, [s, t]);
  }
  const current = (await trx('teams.edges').where({ orgId, type: 'reporting', derivedFromTeamId: teamId })) as EdgeRow[];
  const result: ResyncResult = { added: [], removed: [] };
  const stale = current.filter((e) => !wanted.delete(`${e.sourceId}>${e.targetId}`));
  if (stale.length > 0) await trx('teams.edges').where({ orgId }).whereIn('id', stale.map((e) => e.id)).delete();
  result.removed = stale.map((e) => [e.sourceId, e.targetId]);
  const index = wanted.size > 0 ? await loadReporting(trx, orgId) : undefined;
  for (const [s, t] of [...wanted.values()].sort()) {
    await insertEdge(trx, now, { orgId, sourceId: s, targetId: t, type: 'reporting', derivedFromTeamId: teamId }, index);
    result.added.push([s, t]);
  }
  return result;
}

/** Re-syncs a team and its direct sub-teams (their leads report to its lead). */
export async function resyncWithChildren(trx: Knex.Transaction, orgId: string, teamId: string, now: Date): Promise<ResyncResult> {
  const total = await resyncTeam(trx, orgId, teamId, now);
  const children = (await trx('teams.teams').where({ orgId, parentTeamId: teamId }).orderBy('id').select('id')) as TeamRow[];
  for (const child of children) {
    const r = await resyncTeam(trx, orgId, child.id, now);
    total.added.push(...r.added);
    total.removed.push(...r.removed);
  }
  return total;
}
