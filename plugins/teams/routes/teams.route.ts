import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { TeamMembersService } from '../team-members.service.ts';
import type { TeamsService } from '../teams.service.ts';
import { addMemberBody, createTeamBody, leadBody, updateTeamBody } from '../schemas/bodies.ts';
import { slugParams, teamMemberParams, teamMembersQuery, teamParams } from '../schemas/params.ts';
import { memberAddedResponse, needsResolutionResponse, team, teamMembersResponse, teamsResponse } from '../schemas/responses.ts';

/**
 * Teams under `/api/org/{slug}/teams`: list and create, change (`PATCH /{teamId}`), set or clear
 * the lead (`PUT /{teamId}/lead`, re-syncs automatic reporting lines, emits
 * `reporting.team.lead_changed`), members (`GET|POST /{teamId}/members`, `DELETE
 * /{teamId}/members/{memberId}`). The board is no team: its id answers 404 here.
 * @see docs/api/teams.md
 */
export function teamRoutes(teams: TeamsService, members: TeamMembersService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, tags: ['teams'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/teams', scope: 'org.team.list', params: slugParams, response: teamsResponse,
      summary: "The organization's teams (never the board)",
      handler: async ({ org }) => ({ Teams: await teams.list(org.organization.id) }),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/teams', scope: 'org.team.create', params: slugParams, body: createTeamBody, status: 201,
      response: { 201: team }, summary: 'Create a team (optionally with a lead, under a parent team)',
      handler: async ({ org, body }) => reply(201, await teams.create(org.organization.id, body)),
    }),
    route({
      ...common, method: 'PATCH', path: '/api/org/{slug}/teams/{teamId}', scope: 'org.team.update', params: teamParams, body: updateTeamBody,
      response: team, summary: 'Rename a team, change its kind or move it under another parent',
      handler: ({ org, params, body }) => teams.update(org.organization.id, params.teamId, body),
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/teams/{teamId}/lead', scope: 'org.team.update', params: teamParams, body: leadBody,
      response: team, summary: "Set or clear a team's lead (re-syncs the automatic reporting lines)",
      handler: ({ org, params, body }) => teams.setLead(org.organization.id, params.teamId, body.LeadConnectedId),
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/teams/{teamId}/members', scope: 'org.team.list', params: teamParams, query: teamMembersQuery,
      response: teamMembersResponse, summary: "A team's members (and its sub-teams' with includeSubTeams=true)",
      handler: async ({ org, params, query }) => ({ Members: await members.list(org.organization.id, params.teamId, query.includeSubTeams ?? false) }),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/teams/{teamId}/members', scope: 'org.team.update', params: teamParams, body: addMemberBody, status: 201,
      response: { 201: memberAddedResponse, 200: needsResolutionResponse }, summary: 'Add a member (may ask how to settle their existing managers)',
      handler: async ({ org, params, body }) => {
        const result = await members.add(org.organization.id, params.teamId, body.ConnectedIdId, body.Resolution);
        return result.needsResolution ? reply(200, result) : reply(201, result);
      },
    }),
    route({
      ...common, method: 'DELETE', path: '/api/org/{slug}/teams/{teamId}/members/{memberId}', scope: 'org.team.update', params: teamMemberParams,
      response: { 204: null }, summary: 'Remove a member from a team',
      handler: async ({ org, params }) => {
        await members.remove(org.organization.id, params.teamId, params.memberId);
      },
    }),
  ];
}
