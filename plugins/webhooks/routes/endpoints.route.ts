import { reply, route, type Database, type RouteDef } from '../../../core/index.ts';
import { actingRole } from '../../orgs/api.ts';
import { listDeliveries } from '../deliveries.service.ts';
import type { EndpointsService } from '../endpoints.service.ts';
import { createEndpointBody, toggleBody, updateEndpointBody } from '../schemas/endpoint.body.ts';
import { deliveriesQuery, endpointIdParams, slugParams } from '../schemas/params.ts';
import { deliveriesResponse, endpoint, endpointCreatedResponse, endpointsListResponse, secretResponse } from '../schemas/responses.ts';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Outbound webhook endpoints under `/api/org/{slug}/webhook-endpoints`: list, register (secret shown
 * once), change, rotate the secret, enable/disable, delete (soft), and the delivery attempts.
 * @see docs/api/webhooks.md
 */
export function endpointRoutes(endpoints: EndpointsService, db: Database): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, tags: ['webhooks'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/webhook-endpoints', scope: 'org.webhook.list', params: slugParams, response: endpointsListResponse,
      summary: "The organization's webhook endpoints (never their secrets)",
      handler: async ({ org }) => ({ webhookEndpoints: await endpoints.list(org.organization.id) }),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/webhook-endpoints', scope: 'org.webhook.create', params: slugParams, body: createEndpointBody, status: 201,
      response: endpointCreatedResponse, summary: 'Register a webhook endpoint; its secret is shown once',
      handler: async ({ org, body, principal }) => {
        const creator = { type: principal.accountId ? 'account' : principal.type, id: principal.accountId ?? principal.id, owner: actingRole(org) === 'Owner' };
        return reply(201, await endpoints.create(org.organization.id, creator, body), NO_STORE);
      },
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/webhook-endpoints/{id}', scope: 'org.webhook.update', params: endpointIdParams, body: updateEndpointBody,
      response: endpoint, summary: "Change an endpoint's URL, event patterns or description",
      handler: ({ org, params, body }) => endpoints.update(org.organization.id, params.id, body),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/webhook-endpoints/{id}/rotate-secret', scope: 'org.webhook.rotate_secret', params: endpointIdParams,
      response: secretResponse, summary: 'A new signing secret; the old one stops at once',
      handler: async ({ org, params }) => reply(200, await endpoints.rotateSecret(org.organization.id, params.id), NO_STORE),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/webhook-endpoints/{id}/toggle', scope: 'org.webhook.update', params: endpointIdParams, body: toggleBody,
      response: endpoint, summary: 'Enable (clearing the failure counter) or disable an endpoint',
      handler: ({ org, params, body }) => endpoints.toggle(org.organization.id, params.id, body.isActive),
    }),
    route({
      ...common, method: 'DELETE', path: '/api/org/{slug}/webhook-endpoints/{id}', scope: 'org.webhook.delete', params: endpointIdParams,
      response: { 204: null }, summary: 'Delete an endpoint (soft: its deliveries stay listed in the audit trail)',
      handler: async ({ org, params }) => {
        await endpoints.delete(org.organization.id, params.id);
      },
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/webhook-endpoints/{id}/deliveries', scope: 'org.webhook.read', params: endpointIdParams, query: deliveriesQuery,
      response: deliveriesResponse, summary: "An endpoint's delivery attempts, newest first",
      handler: async ({ org, params, query }) => {
        await endpoints.get(org.organization.id, params.id);
        return listDeliveries(db, org.organization.id, params.id, { limit: query.limit ?? 50, after: query.after });
      },
    }),
  ];
}
