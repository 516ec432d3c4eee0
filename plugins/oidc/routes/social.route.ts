import { route, type RouteDef } from '../../../core/index.ts';
import type { SocialConnections } from '../social-connections.ts';
import type { SocialSignIn } from '../social-sign-in.ts';
import {
  socialCallbackQuery, socialConnection, socialConnectionBody, socialConnectionParams, socialConnectionsResponse, socialGroupParams, socialLoginParams,
} from '../schemas/social.ts';

/**
 * Social sign-in: an app group's connections to upstream OpenID providers
 * (`/api/org/{slug}/app-groups/{groupId}/social-connections`, the app-group scopes), and the hosted
 * login's redirect to a provider and its callback (public; the browser carries the sign-in's cookie).
 * @see docs/api/signin.md "Social sign-in"
 */
export function socialRoutes(connections: SocialConnections, social: SocialSignIn): RouteDef[] {
  const org = { auth: 'session' as const, org: true as const, tags: ['oidc'] };
  return [
    route({
      ...org, method: 'GET', path: '/api/org/{slug}/app-groups/{groupId}/social-connections', scope: 'org.app_group.read', params: socialGroupParams,
      response: socialConnectionsResponse, summary: "The app group's social providers (never a client secret)",
      handler: async ({ org: o, params }) => ({ connections: await connections.list(o.organization.id, params.groupId) }),
    }),
    route({
      ...org, method: 'PUT', path: '/api/org/{slug}/app-groups/{groupId}/social-connections/{provider}', scope: 'org.app_group.update',
      params: socialConnectionParams, body: socialConnectionBody, response: socialConnection,
      summary: 'Connect the app group to a social provider (endpoints read from its discovery document)',
      handler: ({ org: o, params, body }) => connections.put(o.organization.id, params.groupId, params.provider, body),
    }),
    route({
      ...org, method: 'DELETE', path: '/api/org/{slug}/app-groups/{groupId}/social-connections/{provider}', scope: 'org.app_group.update',
      params: socialConnectionParams, response: { 204: null }, summary: 'Remove a social provider from the app group',
      handler: async ({ org: o, params }) => { await connections.remove(o.organization.id, params.groupId, params.provider); },
    }),
    route({
      method: 'GET', path: '/login/{applicationKey}/social/{provider}', auth: 'public', params: socialLoginParams, response: { 303: null }, tags: ['oidc'],
      summary: "Continue the sign-in at a social provider (303 to it; PKCE, state and nonce)",
      handler: ({ params, request }) => social.start(params.applicationKey, params.provider, request.headers.cookie as string | undefined),
    }),
    route({
      method: 'GET', path: '/login/{applicationKey}/social/{provider}/callback', auth: 'public', params: socialLoginParams, query: socialCallbackQuery,
      response: { 303: null }, tags: ['oidc'],
      summary: "The social provider's callback: code exchanged, ID token verified, end user signed in (303 back to the authorization)",
      handler: ({ params, query, request }) => social.finish(params.applicationKey, params.provider, request.headers.cookie as string | undefined, query as Record<string, string>, request.ip),
    }),
  ];
}
