import { reply, route, type RouteDef } from '../../../core/index.ts';
import { actingRole } from '../../orgs/api.ts';
import type { AppGroupsService, ApplicationsService } from '../service-interfaces.ts';
import { appsErrors } from '../errors.ts';
import { createAppGroupBody, updateAppGroupBody } from '../schemas/app-group.body.ts';
import { createGroupApplicationBody } from '../schemas/application.body.ts';
import { groupIdParams, slugParams } from '../schemas/params.ts';
import { appGroup, appGroupCreatedResponse, appGroupsListResponse, applicationWithSecretResponse } from '../schemas/responses.ts';

/** `monetizationEnabled: true` is the Owner's decision (403 for anyone else, machine tokens included). */
const monetizationGuard = ({ body, org }: { body: { monetizationEnabled?: boolean }; org: Parameters<typeof actingRole>[0] }) => {
  if (body.monetizationEnabled === true && actingRole(org) !== 'Owner') throw appsErrors.monetizationOwnerOnly();
};

/**
 * App groups under `/api/org/{slug}/app-groups`: list, read, create (with its first application,
 * whose secret is shown once), update, delete (with its applications), and a new application in a
 * group (`POST …/{groupId}/apps`, the applications service's create with the group from the path).
 * @see docs/api/apps.md
 */
export function appGroupRoutes(groups: AppGroupsService, apps: ApplicationsService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/app-groups', auth: 'session', org: true, scope: 'org.app_group.list', params: slugParams,
      response: appGroupsListResponse, summary: "The organization's app groups", tags: ['apps'],
      handler: async ({ org }) => ({ appGroups: await groups.list(org.organization.id) }),
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.read', params: groupIdParams,
      response: appGroup, summary: 'One app group', tags: ['apps'],
      handler: async ({ org, params }) => (await groups.get(org.organization.id, params.groupId)) ?? Promise.reject(appsErrors.appGroupNotFound()),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/app-groups', auth: 'session', org: true, scope: 'org.app_group.create', params: slugParams,
      body: createAppGroupBody, status: 201, response: appGroupCreatedResponse, guard: monetizationGuard,
      summary: 'Create an app group and its first application (Web, Development)', tags: ['apps'],
      handler: async ({ org, body, principal }) => {
        const created = await groups.create(org.organization.id, principal.accountId ?? null, body);
        return reply(201, created, { 'cache-control': 'no-store' });
      },
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.update', params: groupIdParams,
      body: updateAppGroupBody, response: appGroup, guard: monetizationGuard, summary: 'Change an app group', tags: ['apps'],
      handler: async ({ org, params, body }) => groups.update(org.organization.id, params.groupId, body),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/app-groups/{groupId}', auth: 'session', org: true, scope: 'org.app_group.delete', params: groupIdParams,
      response: { 204: null }, summary: 'Delete an app group and its applications', tags: ['apps'],
      handler: async ({ org, params }) => {
        await groups.delete(org.organization.id, params.groupId);
      },
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/app-groups/{groupId}/apps', auth: 'session', org: true, scope: 'org.application.create', params: groupIdParams,
      body: createGroupApplicationBody, status: 201, response: applicationWithSecretResponse,
      summary: 'Create an application in this group (a confidential client gets its secret, shown once)', tags: ['apps'],
      handler: async ({ org, params, body }) => {
        if (!(await groups.exists(org.organization.id, params.groupId))) throw appsErrors.appGroupNotFound();
        return reply(201, await apps.create(org.organization.id, { ...body, appGroupId: params.groupId }), { 'cache-control': 'no-store' });
      },
    }),
  ];
}
