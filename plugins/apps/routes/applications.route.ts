import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { ApplicationsService } from '../service-interfaces.ts';
import { appsErrors } from '../errors.ts';
import { applicationStatusBody, createApplicationBody, updateApplicationBody } from '../schemas/application.body.ts';
import { appIdParams, slugParams } from '../schemas/params.ts';
import { listApplicationsQuery } from '../schemas/list-applications.query.ts';
import { application, applicationsListResponse, applicationWithSecretResponse } from '../schemas/responses.ts';

/**
 * Applications under `/api/org/{slug}/applications`: list, read (never the secret), create (secret
 * shown once), update the client configuration, enable/disable, rotate the secret, delete.
 * @see docs/api/apps.md
 */
export function applicationRoutes(apps: ApplicationsService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/applications', auth: 'session', org: true, scope: 'org.application.list', params: slugParams,
      query: listApplicationsQuery, response: applicationsListResponse, summary: "The organization's applications", tags: ['apps'],
      handler: async ({ org, query }) => ({ applications: await apps.list(org.organization.id, query.appGroupId) }),
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/applications/{appId}', auth: 'session', org: true, scope: 'org.application.read', params: appIdParams,
      response: application, summary: 'One application (never its secret)', tags: ['apps'],
      handler: async ({ org, params }) => (await apps.get(org.organization.id, params.appId)) ?? Promise.reject(appsErrors.applicationNotFound()),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/applications', auth: 'session', org: true, scope: 'org.application.create', params: slugParams,
      body: createApplicationBody, status: 201, response: applicationWithSecretResponse,
      summary: 'Create an application (a confidential client gets its secret, shown once)', tags: ['apps'],
      handler: async ({ org, body }) => reply(201, await apps.create(org.organization.id, body), { 'cache-control': 'no-store' }),
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/applications/{appId}', auth: 'session', org: true, scope: 'org.application.update', params: appIdParams,
      body: updateApplicationBody, response: application, summary: "Change an application's name or client configuration", tags: ['apps'],
      handler: async ({ org, params, body }) => apps.update(org.organization.id, params.appId, body),
    }),
    route({
      method: 'PATCH', path: '/api/org/{slug}/applications/{appId}/status', auth: 'session', org: true, scope: 'org.application.status', params: appIdParams,
      body: applicationStatusBody, response: application, summary: 'Enable or disable an application', tags: ['apps'],
      handler: async ({ org, params, body }) => apps.setStatus(org.organization.id, params.appId, body.status),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/applications/{appId}/rotate-secret', auth: 'session', org: true, scope: 'org.application.rotate_secret', params: appIdParams,
      response: applicationWithSecretResponse, summary: 'Give a confidential application a new secret (shown once; the old one stops at once)', tags: ['apps'],
      handler: async ({ org, params }) => reply(200, await apps.rotateSecret(org.organization.id, params.appId), { 'cache-control': 'no-store' }),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/applications/{appId}', auth: 'session', org: true, scope: 'org.application.delete', params: appIdParams,
      response: { 204: null }, summary: 'Delete an application', tags: ['apps'],
      handler: async ({ org, params }) => {
        await apps.delete(org.organization.id, params.appId);
      },
    }),
  ];
}
