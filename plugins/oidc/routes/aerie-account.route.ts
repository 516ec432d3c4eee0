import { route, type RouteDef } from '../../../core/index.ts';
import type { AerieAccountSignIn } from '../aerie-account.ts';
import type { HostedLogin } from '../hosted-login.ts';
import { aerieConnectBody } from '../schemas/bodies.ts';
import { applicationParams } from '../schemas/params.ts';
import { aerieAccountPreviewResponse, aerieConnectResponse, redirectResponse } from '../schemas/responses.ts';

/**
 * Sign-in with an Aerie account: the preview and the connect (consent + the end user) under
 * `/api/v1/aerie-account/apps/{applicationKey}`, and the hosted login's own connect, which also
 * finishes the sign-in in progress. Connects are cookie-authenticated writes: `X-CSRF-Token` required.
 * @see docs/api/signin.md "Sign-in with an Aerie account"
 */
export function aerieAccountRoutes(login: HostedLogin, aerieAccount: AerieAccountSignIn): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/aerie-account/apps/{applicationKey}', auth: ['session', 'cookieSession'], params: applicationParams, tags: ['oidc'],
      response: aerieAccountPreviewResponse, summary: 'What signing in to this application with your Aerie account would share, and whether consent is needed',
      handler: async ({ params, principal }) => {
        const { app, group } = await login.application(params.applicationKey);
        return aerieAccount.preview(principal.accountId, app, group);
      },
    }),
    route({
      method: 'POST', path: '/api/v1/aerie-account/apps/{applicationKey}/connect', auth: 'cookieSession', params: applicationParams, body: aerieConnectBody,
      tags: ['oidc'], response: aerieConnectResponse, summary: 'Connect your Aerie account to the application (consent the first time)',
      handler: async ({ params, principal, body }) => {
        const { app, group } = await login.application(params.applicationKey);
        return { connected: true as const, endUserId: await aerieAccount.connect(principal.accountId, app, group, body.consent === true) };
      },
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/aerie/connect', auth: 'cookieSession', params: applicationParams, body: aerieConnectBody,
      tags: ['oidc'], response: redirectResponse, summary: 'On the hosted login: connect your Aerie account and finish the sign-in',
      handler: async ({ params, principal, body, request }) =>
        login.aerieAccountSignIn(params.applicationKey, request.headers.cookie as string | undefined, principal.accountId, body.consent === true, request.ip),
    }),
  ];
}
