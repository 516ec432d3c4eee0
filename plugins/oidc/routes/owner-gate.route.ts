import { reply, route, type RouteDef } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';
import type { OwnerGate } from '../owner-gate.ts';
import { createAppGroupForOwnerBody, ownerStatusBody } from '../schemas/bodies.ts';
import { ownerAppGroupResponse, ownerStatusResponse } from '../schemas/responses.ts';

/**
 * The public API's account-owner routes: `X-Api-Key` (organization-wide) plus the end user's access
 * token in `Authorization: Bearer`; the person is the token's end user, matched by verified email to
 * an Aerie account.
 * @see docs/api/public-v1.md "Owner status", "Create an app group for an owner"
 */
export function ownerGateRoutes(gate: OwnerGate): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/v1/orgs/owner-status', auth: 'apiKey', body: ownerStatusBody, response: ownerStatusResponse, tags: ['public-v1'],
      summary: 'Whether the signed-in end user has an Aerie account, and the organizations it owns',
      handler: async ({ principal, request }) => {
        requireOrganizationWideKey(principal);
        return gate.status((principal as ApiKeyPrincipal).orgId, request.headers.authorization as string | undefined);
      },
    }),
    route({
      method: 'POST', path: '/api/public/v1/orgs/app-groups/create', auth: 'apiKey', body: createAppGroupForOwnerBody, status: 201,
      response: { 201: ownerAppGroupResponse }, tags: ['public-v1'],
      summary: "Create an app group in an organization the signed-in end user's Aerie account owns (platform partners' keys)",
      handler: async ({ principal, request, body }) => {
        requireOrganizationWideKey(principal);
        const g = await gate.createAppGroup((principal as ApiKeyPrincipal).orgId, request.headers.authorization as string | undefined, body);
        return reply(201, { groupKey: g.publicKey, id: g.id, orgId: g.orgId, name: g.name, description: g.description, iconUrl: g.iconUrl, brandColor: g.brandColor });
      },
    }),
  ];
}
