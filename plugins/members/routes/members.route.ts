import { route, type OrgContext, type RouteDef } from '../../../core/index.ts';
import { actingRole } from '../../orgs/api.ts';
import type { MembersService } from '../service-interfaces.ts';
import { memberPatchBody } from '../schemas/member-patch.body.ts';
import { memberParams } from '../schemas/member.params.ts';
import { membersListQuery } from '../schemas/members-list.query.ts';
import { orgParams } from '../schemas/org.params.ts';
import { member, membersListResponse } from '../schemas/responses.ts';


/**
 * `GET /api/org/{slug}/members`, `PATCH …/members/{connectedIdId}`, `POST …/suspend`, `POST …/revoke`,
 * `DELETE …/members/{connectedIdId}` (204). Another organization's member id answers 404.
 * @see docs/api/members.md
 */
export function memberRoutes(members: MembersService): RouteDef[] {
  const actor = (i: { principal: { accountId?: string } | null; org: { membership?: { role: string } } | null }) =>
    ({ accountId: i.principal?.accountId, role: actingRole(i.org as OrgContext | null) });
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/members', auth: 'session', org: true, scope: 'org.member.list', params: orgParams, query: membersListQuery,
      response: membersListResponse,
      summary: "The organization's members", tags: ['members'],
      handler: async ({ org, query }) => ({ Members: await members.list(org.organization.id, query.status) }),
    }),
    route({
      method: 'PATCH', path: '/api/org/{slug}/members/{connectedIdId}', auth: 'session', org: true, scope: 'org.member.update', params: memberParams, body: memberPatchBody,
      response: member,
      summary: 'Edit a member', tags: ['members'],
      handler: async (i) => members.update(i.org.organization.id, i.params.connectedIdId, i.body, actor(i)),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/members/{connectedIdId}/suspend', auth: 'session', org: true, scope: 'org.member.suspend', params: memberParams,
      response: member,
      summary: 'Suspend a member', tags: ['members'],
      handler: async (i) => members.suspend(i.org.organization.id, i.params.connectedIdId, actor(i)),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/members/{connectedIdId}/revoke', auth: 'session', org: true, scope: 'org.member.revoke', params: memberParams,
      response: member,
      summary: 'Revoke a member', tags: ['members'],
      handler: async (i) => members.revoke(i.org.organization.id, i.params.connectedIdId, actor(i)),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/members/{connectedIdId}', auth: 'session', org: true, scope: 'org.member.delete', params: memberParams,
      response: { 204: null },
      summary: 'Delete a membership', tags: ['members'],
      handler: async (i) => {
        await members.remove(i.org.organization.id, i.params.connectedIdId, actor(i));
      },
    }),
  ];
}
