import { reply, route, type AuthzService, type RouteDef } from '../../../core/index.ts';
import type { RolesService } from '../service-interfaces.ts';
import { permissionAddBody } from '../schemas/permission-add.body.ts';
import { roleParams } from '../schemas/role.params.ts';
import { templateParams } from '../schemas/template.params.ts';
import { permission } from '../schemas/responses.ts';


/**
 * `POST /api/org/{slug}/roles/{roleId}/permissions` adds a scope expression (base resolved from the
 * catalog); `DELETE …/permissions/{templateId}` removes one. A plain member (not Owner or Admin)
 * may only add scopes they hold themselves.
 * @see docs/api/roles.md
 */
export function rolePermissionRoutes(roles: RolesService, authz: AuthzService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/roles/{roleId}/permissions', auth: 'session', org: true, scope: 'org.permission.create', params: roleParams, body: permissionAddBody, status: 201,
      response: { 201: permission },
      summary: 'Add a scope expression to a role', tags: ['roles'],
      handler: async ({ org, params, body, principal }) => {
        const held = await authz.permissionSet(principal, org);
        const added = await roles.addPermission(org.organization.id, params.roleId, body.Scope, held === 'all' ? undefined : held);
        return reply(201, added);
      },
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/roles/{roleId}/permissions/{templateId}', auth: 'session', org: true, scope: 'org.permission.delete', params: templateParams,
      response: { 204: null },
      summary: 'Remove a scope expression from a role', tags: ['roles'],
      handler: async ({ org, params }) => {
        await roles.removePermission(org.organization.id, params.roleId, params.templateId);
      },
    }),
  ];
}
