import { route, type RouteDef } from '../../../core/index.ts';
import type { MemberPatch } from '../members.service.ts';
import type { MembersService } from '../service-interfaces.ts';

type MemberParams = { slug: string; connectedIdId: string };

/**
 * `GET /api/org/{slug}/members`, `PATCH …/members/{connectedIdId}`, `POST …/suspend`, `POST …/revoke`,
 * `DELETE …/members/{connectedIdId}` (204). Another organization's member id answers 404.
 * @see spec 01 "Members"
 */
export function memberRoutes(members: MembersService): RouteDef[] {
  const actor = (i: { principal: { accountId?: string } | null; org: { member?: { role: string } } | null }) =>
    ({ accountId: i.principal?.accountId, role: i.org?.member?.role });
  return [
    route<unknown, { status?: 'active' | 'suspended' | 'revoked' }>({
      method: 'GET', path: '/api/org/{slug}/members', auth: 'session', org: true, scope: 'org.member.list', params: 'members/org.params', query: 'members/members-list.query',
      summary: "The organization's members", tags: ['members'],
      handler: async ({ org, query }) => ({ Members: await members.list(org!.org.id, query.status) }),
    }),
    route<MemberPatch, unknown, MemberParams>({
      method: 'PATCH', path: '/api/org/{slug}/members/{connectedIdId}', auth: 'session', org: true, scope: 'org.member.update', params: 'members/member.params', body: 'members/member-patch.body',
      summary: 'Edit a member', tags: ['members'],
      handler: async (i) => members.update(i.org!.org.id, i.params.connectedIdId, i.body, actor(i)),
    }),
    route<unknown, unknown, MemberParams>({
      method: 'POST', path: '/api/org/{slug}/members/{connectedIdId}/suspend', auth: 'session', org: true, scope: 'org.member.suspend', params: 'members/member.params',
      summary: 'Suspend a member', tags: ['members'],
      handler: async (i) => members.suspend(i.org!.org.id, i.params.connectedIdId, actor(i)),
    }),
    route<unknown, unknown, MemberParams>({
      method: 'POST', path: '/api/org/{slug}/members/{connectedIdId}/revoke', auth: 'session', org: true, scope: 'org.member.revoke', params: 'members/member.params',
      summary: 'Revoke a member', tags: ['members'],
      handler: async (i) => members.revoke(i.org!.org.id, i.params.connectedIdId, actor(i)),
    }),
    route<unknown, unknown, MemberParams>({
      method: 'DELETE', path: '/api/org/{slug}/members/{connectedIdId}', auth: 'session', org: true, scope: 'org.member.delete', params: 'members/member.params',
      summary: 'Delete a membership', tags: ['members'],
      handler: async (i) => {
        await members.remove(i.org!.org.id, i.params.connectedIdId, actor(i));
      },
    }),
  ];
}
