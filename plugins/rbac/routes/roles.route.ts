import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { RolesService } from '../service-interfaces.ts';
import { orgParams } from '../schemas/org.params.ts';
import { roleCreateBody } from '../schemas/role-create.body.ts';
import { roleUpdateBody } from '../schemas/role-update.body.ts';
import { roleParams } from '../schemas/role.params.ts';
import { rolesListQuery } from '../schemas/roles-list.query.ts';
import { role, rolesListResponse, scopesResponse } from '../schemas/responses.ts';


/**
 * `/api/org/{slug}/roles`: list (`?includeInactive`), detail, create, update, delete, and the scope
 * catalog (`GET /scopes`). Another organization's role id answers 404 `ROLE_NOT_FOUND`.
 * @see docs/api/roles.md
 */
export function roleRoutes(roles: RolesService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/roles/scopes', auth: 'session', org: true, scope: 'org.role.list', params: orgParams,
      response: scopesResponse,
      summary: 'The scope catalog roles draw from', tags: ['roles'],
      handler: () => ({ Scopes: roles.scopeCatalog().list().map((e) => ({ Scope: e.scope, Description: e.description, Plugin: e.plugin })) }),
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/roles', auth: 'session', org: true, scope: 'org.role.list', params: orgParams, query: rolesListQuery,
      response: rolesListResponse,
      summary: "List the organization's roles", tags: ['roles'],
      handler: async ({ org, query }) => ({ Roles: await roles.list(org.organization.id, query.includeInactive === true) }),
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.read', params: roleParams,
      response: role,
      summary: 'A role with its permissions', tags: ['roles'],
      handler: async ({ org, params }) => roles.get(org.organization.id, params.roleId),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/roles', auth: 'session', org: true, scope: 'org.role.create', params: orgParams, body: roleCreateBody, status: 201,
      response: { 201: role },
      summary: 'Create a role', tags: ['roles'],
      handler: async ({ org, body }) => {
        const role = await roles.create(org.organization.id, body);
        return reply(201, role, { location: `/api/org/${org.organization.slug}/roles/${role.RoleId}` });
      },
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.update', params: roleParams, body: roleUpdateBody,
      response: role,
      summary: 'Update a role', tags: ['roles'],
      handler: async ({ org, params, body }) => roles.update(org.organization.id, params.roleId, body),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/roles/{roleId}', auth: 'session', org: true, scope: 'org.role.delete', params: roleParams,
      response: { 204: null },
      summary: 'Delete a role nobody holds', tags: ['roles'],
      handler: async ({ org, params }) => {
        await roles.remove(org.organization.id, params.roleId);
      },
    }),
  ];
}
