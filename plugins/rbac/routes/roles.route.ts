import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { RolesService } from '../service-interfaces.ts';

type RoleParams = { slug: string; roleId: string };
type RoleBody = { Name: string; RoleKey: string; Description?: string; RequiresApproval?: boolean };
type RolePatch = Partial<RoleBody> & { IsActive?: boolean };

/**
 * `/api/org/{slug}/roles`: list (`?includeInactive`), detail, create, update, delete, and the scope
 * catalog (`GET /scopes`). Another organization's role id answers 404 `ROLE_NOT_FOUND`.
 * @see spec 01 "Roles"
 */
export function roleRoutes(roles: RolesService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/roles/scopes', auth: 'session', org: true, scope: 'org.role.list', params: 'rbac/org.params',
      summary: 'The scope catalog roles draw from', tags: ['roles'],
      handler: () => ({ Scopes: roles.scopeCatalog().list().map((e) => ({ Scope: e.scope, Description: e.description, Plugin: e.plugin })) }),
    }),
    route<unknown, { includeInactive?: boolean }>({
      method: 'GET', path: '/api/org/{slug}/roles', auth: 'session', org: true, scope: 'org.role.list', params: 'rbac/org.params', query: 'rbac/roles-list.query',
      summary: "List the organization's roles", tags: ['roles'],
      handler: async ({ org, query }) => ({ Roles: await roles.list(org!.org.id, query.includeInactive === true) }),
    }),
    route<unknown, unknown, RoleParams>({
      method: 'GET', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.read', params: 'rbac/role.params',
      summary: 'A role with its permissions', tags: ['roles'],
      handler: async ({ org, params }) => roles.get(org!.org.id, params.roleId),
    }),
    route<RoleBody>({
      method: 'POST', path: '/api/org/{slug}/roles', auth: 'session', org: true, scope: 'org.role.create', params: 'rbac/org.params', body: 'rbac/role-create.body', status: 201,
      summary: 'Create a role', tags: ['roles'],
      handler: async ({ org, body }) => {
        const role = await roles.create(org!.org.id, body);
        return reply(201, role, { location: `/api/org/${org!.org.slug}/roles/${role.RoleId}` });
      },
    }),
    route<RolePatch, unknown, RoleParams>({
      method: 'PUT', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.update', params: 'rbac/role.params', body: 'rbac/role-update.body',
      summary: 'Update a role', tags: ['roles'],
      handler: async ({ org, params, body }) => roles.update(org!.org.id, params.roleId, body),
    }),
    route<unknown, unknown, RoleParams>({
      method: 'DELETE', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.delete', params: 'rbac/role.params',
      summary: 'Delete a role nobody holds', tags: ['roles'],
      handler: async ({ org, params }) => {
        await roles.remove(org!.org.id, params.roleId);
      },
    }),
  ];
}
