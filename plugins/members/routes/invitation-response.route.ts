import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { InvitationResponseService } from '../invitation-response.service.ts';
import { registerBody } from '../schemas/register.body.ts';
import { tokenBody } from '../schemas/token.body.ts';
import { acceptedRegisteredResponse, acceptedResponse, declinedResponse } from '../schemas/responses.ts';

/**
 * Invitee side: `POST /api/org/invitation/accept` (session whose email is the invitation's),
 * `/decline` (the token alone), `/accept-with-register` (anonymous: registers the invited address
 * and accepts; 201 with a session).
 * @see docs/api/members.md
 */
export function invitationResponseRoutes(responses: InvitationResponseService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/invitation/accept', auth: 'session', body: tokenBody,
      response: acceptedResponse,
      summary: 'Accept an invitation', tags: ['members'],
      handler: async ({ body, principal }) => responses.accept(body.Token, principal),
    }),
    route({
      method: 'POST', path: '/api/org/invitation/decline', auth: 'public', body: tokenBody,
      response: declinedResponse,
      summary: 'Decline an invitation', tags: ['members'],
      handler: async ({ body }) => responses.decline(body.Token),
    }),
    route({
      method: 'POST', path: '/api/org/invitation/accept-with-register', auth: 'public', body: registerBody, status: 201,
      response: { 201: acceptedRegisteredResponse },
      summary: 'Register the invited address and accept', tags: ['members'],
      handler: async ({ body, request }) => {
        const ua = request.headers['user-agent'];
        const result = await responses.acceptWithRegister(body.Token, body.DisplayName?.trim() ?? null, {
          userAgent: typeof ua === 'string' ? ua : undefined, ip: request.ip,
        });
        return reply(201, result);
      },
    }),
  ];
}
