import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { ScimTokensService } from '../tokens.service.ts';
import { createTokenBody, slugParams, tokenCreatedResponse, tokenIdParams, tokensResponse } from '../schemas/scim.schemas.ts';

/**
 * SCIM tokens under `/api/org/{slug}/settings/scim/tokens`: list, create (value shown once),
 * revoke, erase. @see docs/api/scim.md "Tokens"
 */
export function tokenRoutes(tokens: ScimTokensService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/settings/scim/tokens', auth: 'session', org: true, scope: 'org.scim_token.list', params: slugParams,
      response: tokensResponse, summary: "The organization's SCIM tokens (never their values)", tags: ['scim'],
      handler: async ({ org }) => ({ tokens: await tokens.list(org.organization.id) }),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/settings/scim/tokens', auth: 'session', org: true, scope: 'org.scim_token.create', params: slugParams,
      body: createTokenBody, status: 201, response: tokenCreatedResponse,
      personOnly: 'mints a long-lived provisioning credential: a person decides, not another credential',
      summary: 'Create a SCIM token; its value is shown once', tags: ['scim'],
      handler: async ({ org, body, principal }) => reply(201, await tokens.create(org.organization.id, body.name, { type: 'account', id: principal.accountId ?? principal.id }), { 'cache-control': 'no-store' }),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/settings/scim/tokens/{tokenId}', auth: 'session', org: true, scope: 'org.scim_token.delete', params: tokenIdParams,
      response: { 204: null }, summary: 'Revoke a SCIM token (it stays listed)', tags: ['scim'],
      handler: async ({ org, params }) => {
        await tokens.revoke(org.organization.id, params.tokenId);
      },
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/settings/scim/tokens/{tokenId}/hard', auth: 'session', org: true, scope: 'org.scim_token.delete', params: tokenIdParams,
      response: { 204: null }, summary: 'Erase a SCIM token', tags: ['scim'],
      handler: async ({ org, params }) => {
        await tokens.erase(org.organization.id, params.tokenId);
      },
    }),
  ];
}
