import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { MachineTokenRequest } from '../machine-tokens.service.ts';
import type { MachineTokensService } from '../service-interfaces.ts';
import { m2mTokenBody } from '../schemas/m2m-token.body.ts';
import { m2mTokenResponse } from '../schemas/responses.ts';

/**
 * `POST /api/m2m/token {orgSlug, apiKey, scope?, lifetimeSeconds?}` →
 * `{accessToken, tokenType: 'Bearer', expiresIn, org}` (`Cache-Control: no-store`).
 * @see docs/api/keys.md
 */
export function m2mTokenRoutes(tokens: MachineTokensService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/m2m/token', auth: 'public', body: m2mTokenBody,
      response: m2mTokenResponse,
      summary: 'Exchange an organization API key for a machine token', tags: ['keys'],
      handler: async ({ body }) => reply(200, await tokens.issue(body), { 'cache-control': 'no-store', pragma: 'no-cache' }),
    }),
  ];
}
