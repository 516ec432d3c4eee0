/** Rows of the teams plugin's tables, as knex answers them (camelCase). @see migrations/teams/001_teams.ts */

/** `teams.teams`: a team, or the board (`groupKind` `Board`). */
export interface TeamRow {
  id: string;
  orgId: string;
  groupKind: 'Team' | 'Board';
  name: string;
  kind: string | null;
  leadConnectedId: string | null;
  parentTeamId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Edge types. `member_of` points from a person to a group; the others from person to person. */
export type EdgeType = 'member_of' | 'reporting' | 'reference';

/** `teams.edges`. */
export interface EdgeRow {
  id: string;
  orgId: string;
  sourceId: string;
  targetId: string;
  type: EdgeType;
  derivedFromTeamId: string | null;
  reportingLine: boolean;
  sharePercent: string | number | null;
  createdAt: Date;
}

/** An edge on the wire. @see docs/api/teams.md "The edge object" */
export interface EdgeDto {
  SourceConnectedId: string;
  TargetConnectedId: string;
  Type: EdgeType;
  DerivedFromTeamId: string | null;
  CreatedAt: string;
}

/** The wire form of an edge row. */
export function edgeDto(row: EdgeRow): EdgeDto {
  return {
    SourceConnectedId: row.sourceId, TargetConnectedId: row.targetId, Type: row.type,
    DerivedFromTeamId: row.derivedFromTeamId, CreatedAt: new Date(row.createdAt).toISOString(),
  };
}
