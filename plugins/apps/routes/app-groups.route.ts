import { reply, route, type RouteDef } from '../../../core/index.ts';
import { actingRole } from '../../orgs/api.ts';
import type { AppGroupsService } from '../service-interfaces.ts';
import { appsErrors } from '../errors.ts';
import { createAppGroupBody, updateAppGroupBody } from '../schemas/app-group.body.ts';
import { groupIdParams, slugParams } from '../schemas/params.ts';
import { appGroup, appGroupCreatedResponse, appGroupsListResponse } from '../schemas/responses.ts';

/** `monetizationEnabled: true` is the Owner's decision (403 for anyone else, machine tokens included). */
const monetizationGuard = ({ body, org }: { body: { monetizationEnabled?: boolean }; org: Parameters<typeof actingRole>[0] }) => {
  if (body.monetizationEnabled === true && actingRole(org) !== 'Owner') throw appsErrors.monetizationOwnerOnly();
};

/**
 * App groups under `/api/org/{slug}/app-groups`: list, read, create (with its first application,
 * whose secret is shown once), update, delete (with its applications).
 * @see docs/api/apps.md
 */
export function appGroupRoutes(groups: AppGroupsService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/app-groups', auth: 'session', org: true, scope: 'org.app_group.list', params: slugParams,
      response: appGroupsListResponse, summary: "The organization's app groups", tags: ['apps'],
      handler: async ({ org }) => ({ appGroups: await groups.list(org.org.id) }),
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.read', params: groupIdParams,
      response: appGroup, summary: 'One app group', tags: ['apps'],
      handler: async ({ org, params }) => (await groups.get(org.org.id, params.groupId)) ?? Promise.reject(appsErrors.appGroupNotFound()),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/app-groups', auth: 'session', org: true, scope: 'org.app_group.create', params: slugParams,
      body: createAppGroupBody, status: 201, response: appGroupCreatedResponse, guard: monetizationGuard,
      summary: 'Create an app group and its first application (Web, Development)', tags: ['apps'],
      handler: async ({ org, body, principal }) => {
        const created = await groups.create(org.org.id, principal.accountId ?? null, body);
        return reply(201, created, { 'cache-control': 'no-store' });
      },
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.update', params: groupIdParams,
      body: updateAppGroupBody, response: appGroup, guard: monetizationGuard, summary: 'Change an app group', tags: ['apps'],
      handler: async ({ org, params, body }) => groups.update(org.org.id, params.groupId, body),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.delete', params: groupIdParams,
      response: { 204: null }, summary: 'Delete an app group and its applications', tags: ['apps'],
      handler: async ({ org, params }) => {
        await groups.delete(org.org.id, params.groupId);
      },
    }),
  ];
}
