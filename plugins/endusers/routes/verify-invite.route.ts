import { route, type RateLimiter, type RouteDef } from '../../../core/index.ts';
import type { EndUserInvites } from '../invites.service.ts';
import { verifyInviteBody } from '../schemas/bodies.ts';
import { verifyInviteResponse } from '../schemas/responses.ts';

/**
 * `POST /api/enduser/verify-invite` (public): spends an invite token; limited per client address.
 * @see docs/api/endusers.md "Verify an invite"
 */
export function verifyInviteRoutes(invites: EndUserInvites, perIp: RateLimiter): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/enduser/verify-invite', auth: 'public', body: verifyInviteBody,
      response: verifyInviteResponse, summary: "Verify an end user's invite token: the end user becomes Active", tags: ['endusers'],
      handler: async ({ body, request }) => {
        await perIp.consume(request.ip);
        return invites.verify(body.token);
      },
    }),
  ];
}
