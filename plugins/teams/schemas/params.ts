import type { RouteSchema } from '../../../core/index.ts';

const slug = { type: 'string', maxLength: 39 } as const;
const uuid = { type: 'string', format: 'uuid' } as const;

/** JSON Schema `teams/slug.params`. */
export const slugParams = {
  $id: 'teams/slug.params', type: 'object', required: ['slug'], properties: { slug },
} as const satisfies RouteSchema;

/** JSON Schema `teams/team.params`. */
export const teamParams = {
  $id: 'teams/team.params', type: 'object', required: ['slug', 'teamId'], properties: { slug, teamId: uuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/team-member.params`. */
export const teamMemberParams = {
  $id: 'teams/team-member.params', type: 'object', required: ['slug', 'teamId', 'memberId'], properties: { slug, teamId: uuid, memberId: uuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/board-member.params`. */
export const boardMemberParams = {
  $id: 'teams/board-member.params', type: 'object', required: ['slug', 'memberId'], properties: { slug, memberId: uuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/team-members.query`: `includeSubTeams` (default false). */
export const teamMembersQuery = {
  $id: 'teams/team-members.query', type: 'object', additionalProperties: false,
  properties: { includeSubTeams: { type: 'boolean', default: false } },
} as const satisfies RouteSchema;

/** JSON Schema `teams/relationship.query`: the manual edge to delete. */
export const relationshipQuery = {
  $id: 'teams/relationship.query', type: 'object', additionalProperties: false, required: ['sourceId', 'targetId', 'type'],
  properties: { sourceId: uuid, targetId: uuid, type: { enum: ['reporting', 'reference'] } },
} as const satisfies RouteSchema;
