import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { SdkSignIn } from '../sdk-sign-in.ts';
import { sdkAerieConnectBody, sdkEmailCodeBody, sdkEmailCodeVerifyBody, sdkPasskeyBody, sdkSignInBody, sdkStartBody } from '../schemas/bodies.ts';
import { applicationParams } from '../schemas/params.ts';
import { sdkSocialResponse, socialLoginParams } from '../schemas/social.ts';
import { emailCodeResponse, passkeyOptionsResponse, sdkCodeResponse, sdkStartResponse } from '../schemas/responses.ts';

/**
 * The SDK routes `/api/public/apps/{applicationKey}/auth/*`: the hosted login's emailed-code, passkey
 * and Aerie-account methods as JSON, ending with an authorization code the application exchanges at
 * the token endpoint. The Aerie-account connect is cookie-authenticated (Aerie's own session, from
 * Aerie's origin): `X-CSRF-Token` required.
 * @see docs/api/signin.md "SDK routes"
 */
export function sdkRoutes(sdk: SdkSignIn): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/start', auth: 'public', params: applicationParams, body: sdkStartBody, status: 201,
      response: { 201: sdkStartResponse }, tags: ['oidc'], summary: 'Start an SDK sign-in (the authorization request as JSON, PKCE S256)',
      handler: async ({ params, body, request }) => reply(201, await sdk.start(params.applicationKey, body, request.ip)),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/email-code', auth: 'public', params: applicationParams, body: sdkEmailCodeBody,
      response: emailCodeResponse, tags: ['oidc'], summary: 'Mail a sign-in code for an SDK sign-in (the same answer for any address)',
      handler: async ({ params, body, request }) => ({ sent: true as const, ...(await sdk.sendCode(params.applicationKey, body.signInId, body.email, request.ip)) }),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/email-code/verify', auth: 'public', params: applicationParams, body: sdkEmailCodeVerifyBody,
      response: sdkCodeResponse, tags: ['oidc'], summary: 'Check the code; answers an authorization code to exchange at the token endpoint',
      handler: ({ params, body, request }) => sdk.verifyCode(params.applicationKey, body.signInId, body.email, body.code, request.ip),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/passkey/options', auth: 'public', params: applicationParams, body: sdkSignInBody,
      response: passkeyOptionsResponse, tags: ['oidc'], summary: 'Options for a passkey sign-in in an SDK sign-in (discoverable credentials)',
      handler: async ({ params, body }) => ({ options: await sdk.passkeyOptions(params.applicationKey, body.signInId) }),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/passkey/verify', auth: 'public', params: applicationParams, body: sdkPasskeyBody,
      response: sdkCodeResponse, tags: ['oidc'], summary: 'Check a passkey assertion; answers an authorization code to exchange at the token endpoint',
      handler: ({ params, body, request }) => sdk.passkeySignIn(params.applicationKey, body.signInId, body.response as unknown as AuthenticationResponseJSON, request.ip),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/social/{provider}', auth: 'public', params: socialLoginParams, body: sdkSignInBody,
      response: sdkSocialResponse, tags: ['oidc'], summary: "Social sign-in in an SDK sign-in: the provider's URL to open; it ends at the redirect URI with a code",
      handler: ({ params, body }) => sdk.socialStart(params.applicationKey, body.signInId, params.provider),
    }),
    route({
      method: 'POST', path: '/api/public/apps/{applicationKey}/auth/aerie-account/connect', auth: 'cookieSession', params: applicationParams, body: sdkAerieConnectBody,
      response: sdkCodeResponse, tags: ['oidc'], summary: 'Connect your Aerie account in an SDK sign-in (consent the first time); answers an authorization code',
      handler: ({ params, body, principal, request }) => sdk.aerieAccountSignIn(params.applicationKey, body.signInId, principal.accountId, body.consent === true, request.ip),
    }),
  ];
}
