import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { EndUserImportsService, EndUserSignInService, EndUsersService } from '../service-interfaces.ts';
import { bulkImportBody, createBody, permissionsBody } from '../schemas/bodies.ts';
import { listQuery } from '../schemas/list.query.ts';
import { endUserGroupParams, endUserParams, slugParams } from '../schemas/params.ts';
import { endUser, endUserListResponse, importResponse, permissionsResponse } from '../schemas/responses.ts';

/**
 * End users under `/api/org/{slug}/endusers`: list and search, create (invite), bulk import, re-send
 * the invite, suspend, activate, delete, set the permissions for one app group, and remove access to one.
 * @see docs/api/endusers.md
 */
export function endUserRoutes(endUsers: EndUsersService, imports: EndUserImportsService, signIn: EndUserSignInService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/endusers', auth: 'session', org: true, scope: 'org.end_user.list', params: slugParams, query: listQuery,
      response: endUserListResponse, summary: "The organization's end users, newest first, a page at a time", tags: ['endusers'],
      handler: async ({ org, query }) => endUsers.list(org.organization.id, query),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/endusers', auth: 'session', org: true, scope: 'org.end_user.create', params: slugParams, body: createBody,
      status: 201, response: { 201: endUser }, summary: 'Create an end user (Pending) with access to an app group and mail an invite', tags: ['endusers'],
      handler: async ({ org, body }) => reply(201, await endUsers.create(org.organization.id, body)),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/endusers/bulk-import', auth: 'session', org: true, scope: 'org.end_user.create', params: slugParams,
      body: bulkImportBody, response: importResponse, summary: 'Create up to 500 end users, each row answered on its own', tags: ['endusers'],
      handler: async ({ org, body }) => ({
        results: await imports.import(org.organization.id, { appGroupId: body.appGroupId, source: 'bulk-import', sendInvites: true, users: body.users }),
      }),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/endusers/{endUserId}/resend-invite', auth: 'session', org: true, scope: 'org.end_user.invite',
      params: endUserParams, response: endUser, summary: "Mail a Pending end user's invite again", tags: ['endusers'],
      handler: async ({ org, params }) => endUsers.resendInvite(org.organization.id, params.endUserId),
    }),
    route({
      method: 'PATCH', path: '/api/org/{slug}/endusers/{endUserId}/suspend', auth: 'session', org: true, scope: 'org.end_user.update',
      params: endUserParams, response: endUser, summary: 'Suspend an end user', tags: ['endusers'],
      handler: async ({ org, params }) => endUsers.suspend(org.organization.id, params.endUserId),
    }),
    route({
      method: 'PATCH', path: '/api/org/{slug}/endusers/{endUserId}/activate', auth: 'session', org: true, scope: 'org.end_user.update',
      params: endUserParams, response: endUser, summary: 'Lift a suspension', tags: ['endusers'],
      handler: async ({ org, params }) => endUsers.activate(org.organization.id, params.endUserId),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/endusers/{endUserId}', auth: 'session', org: true, scope: 'org.end_user.delete',
      params: endUserParams, response: { 204: null }, summary: 'Delete an end user, their access and invites', tags: ['endusers'],
      handler: async ({ org, params }) => {
        await endUsers.delete(org.organization.id, params.endUserId);
      },
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/endusers/{endUserId}/groups/{groupId}', auth: 'session', org: true, scope: 'org.end_user.update',
      params: endUserGroupParams, response: { 204: null }, summary: "Remove an end user's access to an app group", tags: ['endusers'],
      handler: async ({ org, params }) => {
        await endUsers.removeAccess(org.organization.id, params.endUserId, params.groupId);
      },
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/endusers/{endUserId}/groups/{groupId}/permissions', auth: 'session', org: true, scope: 'org.end_user.update',
      params: endUserGroupParams, body: permissionsBody, response: permissionsResponse,
      summary: "Replace an end user's permissions for an app group (their tokens' `permissions` claim)", tags: ['endusers'],
      handler: async ({ org, params, body }) => ({ permissions: await signIn.setPermissions(org.organization.id, params.endUserId, params.groupId, body.permissions) }),
    }),
  ];
}
