import { reply, route, type RouteDef } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';
import type { OwnerGate } from '../owner-gate.ts';
import { checkPermission } from '../permission-check.ts';
import type { AccessTokenDeps } from '../access-tokens.ts';
import type { OrganizationsService } from '../../orgs/api.ts';
import { createAppGroupForOwnerBody, ownerStatusBody, permissionCheckBody } from '../schemas/bodies.ts';
import { ownerAppGroupResponse, ownerStatusResponse, permissionCheckResponse } from '../schemas/responses.ts';

/**
 * The public API's account-owner routes: `X-Api-Key` (organization-wide) plus the end user's access
 * token in `Authorization: Bearer`; the person is the token's end user, matched by verified email to
 * an Aerie account.
 * @see docs/api/public-v1.md "Owner status", "Create an app group for an owner"
 */
export function ownerGateRoutes(gate: OwnerGate, tokens: AccessTokenDeps & { orgs: OrganizationsService }): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/v1/end-users/permission-check', auth: 'apiKey', body: permissionCheckBody, response: permissionCheckResponse, tags: ['public-v1'],
      summary: "Whether the end user behind an access token (Authorization: Bearer) holds a permission now, read fresh",
      handler: ({ principal, request, body }) => checkPermission(tokens, principal as ApiKeyPrincipal, request.headers.authorization as string | undefined, body.permission),
    }),
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
