import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { ReportingService } from '../reporting.service.ts';
import { relationshipBody } from '../schemas/bodies.ts';
import { relationshipQuery, slugParams } from '../schemas/params.ts';
import { edge, graphResponse } from '../schemas/responses.ts';

/**
 * The reporting graph (`GET /api/org/{slug}/reporting/graph`) and manual relationships
 * (`POST /api/org/{slug}/relationships`, `DELETE …/relationships?sourceId=&targetId=&type=`), with
 * reporting cycles refused (409 `REPORTING_CYCLE` naming the path). Relationships need
 * `org.member.update`, the scope that edits a member's reporting manager.
 * @see docs/api/teams.md
 */
export function reportingRoutes(reporting: ReportingService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, tags: ['teams'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/reporting/graph', scope: 'org.team.list', params: slugParams, response: graphResponse,
      summary: 'People, teams and their member_of, reporting and reference edges',
      handler: ({ org }) => reporting.graph(org.organization.id),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/relationships', scope: 'org.member.update', params: slugParams, body: relationshipBody, status: 201,
      response: { 201: edge }, summary: 'Add a reporting line or a dotted line between two members',
      handler: async ({ org, body }) => reply(201, await reporting.relate(org.organization.id, body)),
    }),
    route({
      ...common, method: 'DELETE', path: '/api/org/{slug}/relationships', scope: 'org.member.update', params: slugParams, query: relationshipQuery,
      response: { 204: null }, summary: 'Remove a manual reporting or dotted line',
      handler: async ({ org, query }) => {
        await reporting.unrelate(org.organization.id, query);
      },
    }),
  ];
}
