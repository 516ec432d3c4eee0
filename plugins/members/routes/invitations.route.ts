import { reply, route, type OrgContext, type Principal, type RouteDef } from '../../../core/index.ts';
import { actingRole } from '../../orgs/api.ts';
import { DIRECTOR_ORG_TYPES, isDirectorRoleId, type PermissionsService } from '../../rbac/api.ts';
import type { Inviter } from '../invitations.service.ts';
import type { InvitationsService } from '../service-interfaces.ts';
import { invitationParams } from '../schemas/invitation.params.ts';
import { invitationsListQuery } from '../schemas/invitations-list.query.ts';
import { inviteBody } from '../schemas/invite.body.ts';
import { orgParams } from '../schemas/org.params.ts';
import { resendBody } from '../schemas/resend.body.ts';
import { invitation, invitationsListResponse } from '../schemas/responses.ts';

/** Seal purpose of director invitations. @see docs/api/members.md */
export const DIRECTOR_SEAL_PURPOSE = 'board.member.change';

/**
 * Organization side of invitations: `POST /api/org/{slug}/members/invite` (201; director roles need
 * a `board.member.change` seal on subject `{slug}|{inviteeEmail}|appoint-invite`),
 * `POST …/invite/resend`, `DELETE …/invite/{invitationId}` (204), `GET …/members/invitations`.
 * @see docs/api/members.md
 */
export function invitationRoutes(invitations: InvitationsService, permissions: PermissionsService): RouteDef[] {
  // Who is inviting, cancelling or re-sending: a plain member carries their grants, since they may
  // only act on invitations to roles whose permissions they hold.
  const inviter = async (principal: Principal, org: OrgContext): Promise<Inviter> => {
    const role = actingRole(org);
    const grants = role === 'Member' ? await permissions.grantsOf(principal, org) : undefined;
    return { accountId: principal.accountId, email: principal.email, role, grants: grants === 'all' ? undefined : grants };
  };
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/members/invite', auth: 'session', org: true, scope: 'org.member.invite', params: orgParams, body: inviteBody, status: 201,
      response: { 201: invitation },
      summary: 'Invite someone by email with a proposed role', tags: ['members'],
      seal: {
        purpose: DIRECTOR_SEAL_PURPOSE,
        // The organization's canonical (lowercase) slug and the invitee's address, lowercased.
        subject: (i) => `${i.org.organization.slug}|${i.body.Email.trim().toLowerCase()}|appoint-invite`,
        assertionField: 'SealAssertionJson',
        // Only where directors are allowed at all: elsewhere the handler refuses (400) without spending a seal.
        when: (i) => DIRECTOR_ORG_TYPES.has(i.org.organization.type) && isDirectorRoleId(i.org.organization.id, i.body.RoleId),
      },
      handler: async ({ org, body, principal }) => reply(201, await invitations.invite(org.organization, await inviter(principal, org), body)),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/members/invite/resend', auth: 'session', org: true, scope: 'org.member.invite', params: orgParams, body: resendBody,
      response: invitation,
      summary: 'Re-send an invitation with a new token', tags: ['members'],
      handler: async ({ org, body, principal }) => invitations.resend(org.organization, await inviter(principal, org), body),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/members/invite/{invitationId}', auth: 'session', org: true, scope: 'org.member.invite', params: invitationParams,
      response: { 204: null },
      summary: 'Cancel an invitation', tags: ['members'],
      handler: async ({ org, params, principal }) => {
        await invitations.cancel(org.organization.id, await inviter(principal, org), params.invitationId);
      },
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/members/invitations', auth: 'session', org: true, scope: 'org.member.list', params: orgParams, query: invitationsListQuery,
      response: invitationsListResponse,
      summary: "The organization's invitations", tags: ['members'],
      handler: async ({ org, query }) => ({ Invitations: await invitations.list(org.organization.id, query.status) }),
    }),
  ];
}
