import { route, type RouteDef } from '../../../core/index.ts';
import type { LinksService } from '../links.service.ts';
import type { SigninService } from '../signin.service.ts';
import { LINK_SEAL_PURPOSE, linkBody, linkIdParams, linksResponse, linkStartedResponse } from '../schemas/link.schemas.ts';

/**
 * `/api/v1/users/me/idp-links`: the person links an organization's IdP identity to their own Aerie
 * account (from their own cookie session, sealed with their passkey, completed in that browser),
 * lists and removes links. Account-wide: an organization session gets 403.
 * @see docs/api/federation.md "Linking an Aerie account"
 */
export function linkRoutes(signin: SigninService, links: LinksService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/users/me/idp-links', auth: ['session', 'cookieSession'], response: linksResponse,
      summary: "The account's links to organizations' identity providers", tags: ['federation'],
      handler: async ({ principal }) => ({ links: await links.list(principal.accountId) }),
    }),
    route({
      method: 'POST', path: '/api/v1/users/me/idp-links', auth: 'cookieSession', body: linkBody, status: 201, response: { 201: linkStartedResponse },
      guard: async ({ body, principal }) => {
        await signin.linkable(body.orgSlug, principal.accountId, principal.platformAdmin === true);
      },
      seal: { purpose: LINK_SEAL_PURPOSE, subject: ({ body }) => body.orgSlug, assertionField: 'SealAssertionJson' },
      summary: "Link an organization's IdP identity to this account: starts the IdP flow in this browser", tags: ['federation'],
      handler: ({ body, principal, request }) => signin.startLink(body.orgSlug, principal.accountId, principal.platformAdmin === true, request.ip),
    }),
    route({
      method: 'DELETE', path: '/api/v1/users/me/idp-links/{linkId}', auth: ['session', 'cookieSession'], params: linkIdParams, response: { 204: null },
      summary: 'Remove a link: the IdP no longer signs in as this account', tags: ['federation'],
      handler: async ({ principal, params }) => {
        await links.unlink(principal.accountId, params.linkId);
      },
    }),
  ];
}
