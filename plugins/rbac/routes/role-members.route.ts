import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { AssignmentsService } from '../service-interfaces.ts';
import { actingRole } from '../../orgs/api.ts';
import { DIRECTOR_ORG_TYPES, isDirectorRoleId } from '../presets.ts';
import { rbacErrors } from '../errors.ts';
import type { PermissionsService } from '../service-interfaces.ts';
import { assignBody } from '../schemas/assign.body.ts';
import { assignmentParams } from '../schemas/assignment.params.ts';
import { roleParams } from '../schemas/role.params.ts';
import { assignmentResponse } from '../schemas/responses.ts';


/**
 * `POST /api/org/{slug}/roles/{roleId}/members` assigns a role (201 new, 200 re-snapshot); a director
 * preset needs a Corporation or Project organization and a `board.member.change` seal on subject
 * `{slug}|{ConnectedIdId}|appoint`;
 * `DELETE …/members/{connectedIdRoleId}` takes it away (204, no body). The POST answers the membership type.
 * @see docs/api/roles.md (separation of duties)
 */
export function roleMemberRoutes(assignments: AssignmentsService, permissions: PermissionsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/roles/{roleId}/members', auth: 'session', org: true, scope: 'org.role.assign', params: roleParams, body: assignBody, status: 201,
      response: { 201: assignmentResponse, 200: assignmentResponse },
      summary: 'Assign a role to a member (snapshots its permissions)', tags: ['roles'],
      // Appointing a director is a board change: the same seal as a director invitation, bound to the member.
      seal: {
        purpose: 'board.member.change',
        subject: (i) => `${i.org.organization.slug}|${i.body.ConnectedIdId}|appoint`,
        assertionField: 'SealAssertionJson',
        when: (i) => DIRECTOR_ORG_TYPES.has(i.org.organization.type) && isDirectorRoleId(i.org.organization.id, i.params.roleId),
      },
      handler: async ({ org, params, body, principal }) => {
        const orgId = org.organization.id;
        if (isDirectorRoleId(orgId, params.roleId) && !DIRECTOR_ORG_TYPES.has(org.organization.type)) throw rbacErrors.directorOrgType(org.organization.type);
        const role = actingRole(org);
        const grants = role === 'Member' ? await permissions.grantsOf(principal, org) : 'all';
        const result = await assignments.withSodAudit((trx) => assignments.assign(trx, {
          orgId, membershipId: body.ConnectedIdId, roleId: params.roleId, variables: body.Variables,
          assigner: { accountId: principal.accountId, role, grants: grants === 'all' ? undefined : grants },
        }));
        return reply(result.created ? 201 : 200, { ...result.assignment, MembershipType: result.membershipType });
      },
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/roles/{roleId}/members/{connectedIdRoleId}', auth: 'session', org: true, scope: 'org.role.unassign', params: assignmentParams,
      response: { 204: null },
      summary: 'Take a role assignment away', tags: ['roles'],
      handler: async ({ org, params }) => {
        await assignments.unassign(org.organization.id, params.roleId, params.connectedIdRoleId);
      },
    }),
  ];
}
