import { route, type RouteDef } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';
import type { OrganizationDirectory } from '../organization-directory.ts';
import { publicApiErrors } from '../errors.ts';
import { byIdBody } from '../schemas/by-id.body.ts';
import { byOwnerBody } from '../schemas/by-owner.body.ts';
import { matchBody } from '../schemas/match.body.ts';
import { operatorsResponse, organizationsResponse, publicOrganization } from '../schemas/responses.ts';

/**
 * The public organization API (`X-Api-Key`): `POST /orgs/by-owner` (a list, empty for "no account"
 * and "owns nothing"), `POST /orgs/match`, `POST /orgs/by-id` (404 when absent) and
 * `GET /orgs/operators` (active Owner/Admin members of the key's organization; app-group-scoped keys
 * get 401).
 * @see docs/api/public-v1.md
 */
export function orgRoutes(directory: OrganizationDirectory): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/v1/orgs/by-owner', auth: 'apiKey', body: byOwnerBody,
      response: organizationsResponse,
      summary: 'Organizations owned by an email', tags: ['public-v1'],
      handler: async ({ body }) => directory.ownedBy(body.ownerEmail),
    }),
    route({
      method: 'POST', path: '/api/public/v1/orgs/match', auth: 'apiKey', body: matchBody,
      response: publicOrganization,
      summary: 'The organization an email owns under a name', tags: ['public-v1'],
      handler: async ({ body }) => {
        const org = await directory.match(body.ownerEmail, body.orgName);
        if (!org) throw publicApiErrors.noMatchingOrganization();
        return org;
      },
    }),
    route({
      method: 'POST', path: '/api/public/v1/orgs/by-id', auth: 'apiKey', body: byIdBody,
      response: publicOrganization,
      summary: 'An organization by id', tags: ['public-v1'],
      handler: async ({ body }) => {
        const org = await directory.byId(body.orgId);
        if (!org) throw publicApiErrors.organizationNotFound();
        return org;
      },
    }),
    route({
      method: 'GET', path: '/api/public/v1/orgs/operators', auth: 'apiKey',
      response: operatorsResponse,
      summary: "The key's organization's active owners and admins", tags: ['public-v1'],
      handler: async ({ principal }) => {
        requireOrganizationWideKey(principal);
        const orgId = (principal as ApiKeyPrincipal).orgId;
        return { orgId, operators: await directory.operators(orgId) };
      },
    }),
  ];
}
