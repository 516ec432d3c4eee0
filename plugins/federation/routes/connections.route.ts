import { permissionDenied, reply, route, type AccountPrincipal, type OrgContext, type RouteDef } from '../../../core/index.ts';
import type { ConnectionsService } from '../connections.service.ts';
import { activeConnectionResponse, connection, createConnectionBody, providerParams, slugParams, testResponse } from '../schemas/connection.schemas.ts';

const PERSON = "changes how every member signs in: an Owner's or Admin's decision";

/** Owner or Admin only (a role granting the scope is not enough). */
function ownerOrAdmin(org: OrgContext, scope: string): void {
  const role = org.membership?.role;
  if (role !== 'Owner' && role !== 'Admin') throw permissionDenied(scope, 'Only the organization owner or an admin may do this.');
}

/**
 * IdP connections under `/api/org/{slug}/idp-connections`: the active one, create (replacing the
 * same provider's), deactivate; and the settings page's routes over the same records
 * (`POST /settings/federation`, `DELETE /settings/federation/{providerId}`, `/test`).
 * @see docs/api/federation.md
 */
export function connectionRoutes(connections: ConnectionsService): RouteDef[] {
  const save = async ({ org, body, principal }: { org: OrgContext; body: Parameters<ConnectionsService['create']>[2]; principal: AccountPrincipal }) => {
    ownerOrAdmin(org, 'org.idp_connection.create');
    return reply(201, await connections.create(org.organization.id, principal.accountId, body));
  };
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/idp-connections', auth: 'session', org: true, scope: 'org.idp_connection.read', params: slugParams,
      response: activeConnectionResponse, summary: 'The active IdP connection, or null (native login); secrets redacted', tags: ['federation'],
      handler: async ({ org }) => ({ connection: await connections.active(org.organization.id) }),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/idp-connections', auth: 'session', org: true, scope: 'org.idp_connection.create', params: slugParams,
      body: createConnectionBody, status: 201, response: { 201: connection }, personOnly: PERSON,
      summary: 'Configure the IdP connection (replaces the same provider’s active one)', tags: ['federation'],
      handler: save,
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/settings/federation', auth: 'session', org: true, scope: 'org.idp_connection.create', params: slugParams,
      body: createConnectionBody, status: 201, response: { 201: connection }, personOnly: PERSON,
      summary: 'The settings page’s save: the same as POST /idp-connections', tags: ['federation'],
      handler: save,
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/settings/federation/{providerId}', auth: 'session', org: true, scope: 'org.idp_connection.deactivate', params: providerParams,
      response: { 204: null }, personOnly: PERSON, summary: 'The settings page’s removal: deactivates the active connection when it is this provider’s', tags: ['federation'],
      handler: async ({ org, params }) => {
        ownerOrAdmin(org, 'org.idp_connection.deactivate');
        await connections.deactivate(org.organization.id, params.providerId);
      },
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/settings/federation/test', auth: 'session', org: true, scope: 'org.idp_connection.create', params: slugParams,
      body: createConnectionBody, response: testResponse, personOnly: "the settings page's test of a sign-in configuration: an Owner's or Admin's tool",
      summary: 'Try a configuration: discovery or metadata fetched and read, nothing saved', tags: ['federation'],
      handler: async ({ org, body }) => {
        ownerOrAdmin(org, 'org.idp_connection.create');
        return connections.test(org.organization.id, body);
      },
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/idp-connections/deactivate', auth: 'session', org: true, scope: 'org.idp_connection.deactivate', params: slugParams,
      response: { 204: null }, personOnly: PERSON, summary: 'Back to native login', tags: ['federation'],
      handler: async ({ org }) => {
        ownerOrAdmin(org, 'org.idp_connection.deactivate');
        await connections.deactivate(org.organization.id);
      },
    }),
  ];
}
