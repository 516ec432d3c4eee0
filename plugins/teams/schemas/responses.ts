import { DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

const personStatus = { enum: ['active', 'suspended'] } as const;

/** Shared schema `teams/Team`. @see docs/api/teams.md "The team object" */
export const team = {
  $id: 'teams/Team', type: 'object', additionalProperties: false,
  required: ['TeamId', 'Name', 'Kind', 'LeadConnectedId', 'ParentTeamId', 'MemberCount', 'CreatedAt', 'UpdatedAt'],
  properties: {
    TeamId: { type: 'string' }, Name: { type: 'string' }, Kind: NULLABLE_STRING, LeadConnectedId: NULLABLE_STRING, ParentTeamId: NULLABLE_STRING,
    MemberCount: { type: 'integer' }, CreatedAt: DATE_TIME, UpdatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `teams/teams.response`. */
export const teamsResponse = {
  $id: 'teams/teams.response', type: 'object', additionalProperties: false, required: ['Teams'],
  properties: { Teams: { type: 'array', items: schemaRef(team) } },
} as const satisfies RouteSchema;

/** Shared schema `teams/TeamMember`. */
export const teamMember = {
  $id: 'teams/TeamMember', type: 'object', additionalProperties: false,
  required: ['ConnectedIdId', 'Name', 'Email', 'Status', 'TeamId', 'IsLead', 'ReportsToLead', 'JoinedAt'],
  properties: {
    ConnectedIdId: { type: 'string' }, Name: { type: 'string' }, Email: { type: 'string' }, Status: personStatus, TeamId: { type: 'string' },
    IsLead: { type: 'boolean' }, ReportsToLead: { type: 'boolean' }, JoinedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `teams/team-members.response`. */
export const teamMembersResponse = {
  $id: 'teams/team-members.response', type: 'object', additionalProperties: false, required: ['Members'],
  properties: { Members: { type: 'array', items: schemaRef(teamMember) } },
} as const satisfies RouteSchema;

/** `teams/member-added.response` (201). */
export const memberAddedResponse = {
  $id: 'teams/member-added.response', type: 'object', additionalProperties: false, required: ['needsResolution', 'member', 'removedManagers'],
  properties: { needsResolution: { const: false }, member: schemaRef(teamMember), removedManagers: { type: 'array', items: { type: 'string' } } },
} as const satisfies RouteSchema;

/** `teams/needs-resolution.response` (200): nothing changed. */
export const needsResolutionResponse = {
  $id: 'teams/needs-resolution.response', type: 'object', additionalProperties: false, required: ['needsResolution', 'existingManagers'],
  properties: {
    needsResolution: { const: true },
    existingManagers: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['ConnectedIdId', 'Name', 'DerivedFromTeamId'],
        properties: { ConnectedIdId: { type: 'string' }, Name: { type: 'string' }, DerivedFromTeamId: NULLABLE_STRING },
      },
    },
  },
} as const satisfies RouteSchema;

/** Shared schema `teams/Edge`. @see docs/api/teams.md "The edge object" */
export const edge = {
  $id: 'teams/Edge', type: 'object', additionalProperties: false, required: ['SourceConnectedId', 'TargetConnectedId', 'Type', 'DerivedFromTeamId', 'CreatedAt'],
  properties: {
    SourceConnectedId: { type: 'string' }, TargetConnectedId: { type: 'string' }, Type: { enum: ['member_of', 'reporting', 'reference'] },
    DerivedFromTeamId: NULLABLE_STRING, CreatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `teams/graph.response`. */
export const graphResponse = {
  $id: 'teams/graph.response', type: 'object', additionalProperties: false, required: ['People', 'Teams', 'Edges'],
  properties: {
    People: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['ConnectedIdId', 'Name', 'Email', 'Status'],
        properties: { ConnectedIdId: { type: 'string' }, Name: { type: 'string' }, Email: { type: 'string' }, Status: personStatus },
      },
    },
    Teams: { type: 'array', items: schemaRef(team) },
    Edges: { type: 'array', items: schemaRef(edge) },
  },
} as const satisfies RouteSchema;

/** `teams/board.response`. @see docs/api/teams.md "The board" */
export const boardResponse = {
  $id: 'teams/board.response', type: 'object', additionalProperties: false, required: ['exists', 'boardId', 'chairmanConnectedId', 'members'],
  properties: {
    exists: { type: 'boolean' }, boardId: NULLABLE_STRING, chairmanConnectedId: NULLABLE_STRING,
    members: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['ConnectedIdId', 'Name', 'Email', 'SharePercent', 'IsChairman', 'SeatedAt'],
        properties: {
          ConnectedIdId: { type: 'string' }, Name: { type: 'string' }, Email: { type: 'string' }, SharePercent: { type: ['number', 'null'] },
          IsChairman: { type: 'boolean' }, SeatedAt: DATE_TIME,
        },
      },
    },
  },
} as const satisfies RouteSchema;
