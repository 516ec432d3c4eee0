import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Eta } from 'eta';
import { PAGE_HEADERS, reply, route, type AerieConfig, type RouteDef } from '../../../core/index.ts';
import { webauthnBundlePath } from '../../accounts/api.ts';
import type { HostedLogin } from '../hosted-login.ts';
import { SOCIAL_SOURCES as SOCIAL_LABELS } from '../social-connections.ts';
import { consentBody, emailCodeBody, emailCodeVerifyBody, passkeyBody } from '../schemas/bodies.ts';
import { applicationParams } from '../schemas/params.ts';
import { emailCodeResponse, loginMethodsResponse, passkeyOptionsResponse, redirectResponse } from '../schemas/responses.ts';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** What each scope lets an application have, as the consent page says it. */
const SCOPE_LABELS: Record<string, string> = {
  openid: 'Know who you are (an identifier of your account, for this application)',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Keep access while you are not using it (until you sign out)',
};


/**
 * The hosted login `{login_url}/login/{applicationKey}` (server-rendered with eta, values escaped,
 * strict CSP, branded from the app group: title, subtitle, colours through a generated stylesheet),
 * its JSON actions (email code) and `GET /api/public/apps/{applicationKey}/login-methods`.
 * @see docs/api/signin.md "Hosted login"
 */
export function loginRoutes(login: HostedLogin, config: AerieConfig): RouteDef[] {
  const eta = new Eta({ autoEscape: true, autoTrim: false });
  const template = readFileSync(`${PAGE_DIR}login.eta`, 'utf8');
  const aerieTemplate = readFileSync(`${PAGE_DIR}aerie.eta`, 'utf8');
  const consentTemplate = readFileSync(`${PAGE_DIR}consent.eta`, 'utf8');
  const loginOrigin = new URL(config.loginUrl).origin;
  /** The cookies of a POST from the login page; none for another site's page (browsers send `Origin` on POSTs). */
  const cookieOf = (headers: Record<string, string | string[] | undefined>) =>
    headers.origin === undefined || headers.origin === loginOrigin ? headers.cookie as string | undefined : undefined;
  const asset = (path: string, file: string, type: string): RouteDef => {
    const body = readFileSync(file.startsWith('/') ? file : `${PAGE_DIR}${file}`);
    return route({
      method: 'GET', path, auth: 'public', tags: ['pages'], summary: `Asset of the hosted login page (${type.split(';')[0]})`,
      response: { contentType: type.split(';')[0], description: 'The file' },
      handler: () => reply(200, body, { ...PAGE_HEADERS, 'content-type': type, 'cache-control': 'no-cache' }),
    });
  };
  return [
    route({
      method: 'GET', path: '/login/{applicationKey}', auth: 'public', params: applicationParams, tags: ['pages'],
      response: { 200: { contentType: 'text/html', description: 'The sign-in page' }, 404: { contentType: 'text/html', description: 'The page saying no sign-in is in progress' } },
      summary: 'The hosted login page of an application (the OpenID provider sends the browser here); the consent page when the provider asks for consent',
      handler: async ({ params, request }) => {
        const { app, group } = await login.application(params.applicationKey);
        const current = await login.inProgress(params.applicationKey, request.headers.cookie as string | undefined);
        const consent = current && login.consentRequest(current);
        if (consent) {
          const html = eta.renderString(consentTemplate, {
            applicationKey: params.applicationKey, applicationName: app.name, groupName: group.name, organizationName: await login.organizationName(app.orgId), firstParty: app.firstParty,
            iconUrl: group.iconUrl?.startsWith('/') ? group.iconUrl : null,
            scopes: consent.scopes.map((name) => ({ name, label: SCOPE_LABELS[name] ?? name })),
          });
          return reply(200, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
        }
        const html = eta.renderString(template, {
          applicationKey: params.applicationKey, groupName: group.name, heroTitle: group.branding.heroTitle, heroSubtitle: group.branding.heroSubtitle,
          iconUrl: group.iconUrl?.startsWith('/') ? group.iconUrl : null, inProgress: current !== undefined, methods: await login.loginMethods(app.orgId, group),
          socialLabels: SOCIAL_LABELS,
          loginHint: typeof current?.interaction.params.login_hint === 'string' ? current.interaction.params.login_hint : '',
        });
        return reply(current ? 200 : 404, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
      },
    }),
    route({
      method: 'GET', path: '/login/{applicationKey}/aerie', auth: 'public', params: applicationParams, tags: ['pages'],
      response: { 200: { contentType: 'text/html', description: 'The page' }, 404: { contentType: 'text/html', description: 'The page saying no sign-in is in progress' } },
      summary: 'The hosted login page for sign-in with an Aerie account',
      handler: async ({ params, request }) => {
        const { group } = await login.application(params.applicationKey);
        const current = await login.inProgress(params.applicationKey, request.headers.cookie as string | undefined);
        const html = eta.renderString(aerieTemplate, {
          applicationKey: params.applicationKey, groupName: group.name, inProgress: current !== undefined, enabled: (await login.methods(group)).aerieAccount,
        });
        return reply(current ? 200 : 404, html, { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
      },
    }),
    route({
      method: 'GET', path: '/login/{applicationKey}/brand.css', auth: 'public', params: applicationParams, tags: ['pages'],
      response: { contentType: 'text/css', description: "The app group's colours as CSS custom properties" }, summary: "The hosted login page's brand colours",
      handler: async ({ params }) => {
        const { group } = await login.application(params.applicationKey);
        const vars = [['--aerie-primary', group.branding.primaryColor ?? group.brandColor], ['--aerie-background', group.branding.backgroundColor]]
          .filter(([, v]) => typeof v === 'string' && HEX_COLOR.test(v)).map(([k, v]) => `${k}: ${v};`).join(' ');
        return reply(200, `:root { ${vars} }\n`, { ...PAGE_HEADERS, 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' });
      },
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/email-code', auth: 'public', params: applicationParams, body: emailCodeBody, tags: ['oidc'],
      response: emailCodeResponse, summary: 'Mail a sign-in code (the same answer for any address)',
      handler: async ({ params, body, request }) => {
        return { sent: true as const, ...(await login.sendCode(params.applicationKey, cookieOf(request.headers), body.email, request.ip)) };
      },
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/email-code/verify', auth: 'public', params: applicationParams, body: emailCodeVerifyBody, tags: ['oidc'],
      response: redirectResponse, summary: 'Check the code and finish the sign-in; answers where the browser goes next',
      handler: async ({ params, body, request }) => {
        return login.verifyCode(params.applicationKey, cookieOf(request.headers), body.email, body.code, request.ip);
      },
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/consent', auth: 'public', params: applicationParams, body: consentBody, tags: ['oidc'],
      response: redirectResponse, summary: 'The end user allows or denies a third-party application the scopes it asks for; answers where the browser goes next',
      handler: async ({ params, body, request }) => login.consent(params.applicationKey, cookieOf(request.headers), body.decision === 'allow'),
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/passkey/options', auth: 'public', params: applicationParams, tags: ['oidc'],
      response: passkeyOptionsResponse, summary: 'Options for signing in with a passkey (discoverable credentials)',
      handler: async ({ params, request }) => ({ options: await login.passkeyOptions(params.applicationKey, cookieOf(request.headers)) }),
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/passkey/verify', auth: 'public', params: applicationParams, body: passkeyBody, tags: ['oidc'],
      response: redirectResponse, summary: 'Check a passkey assertion and finish the sign-in; answers where the browser goes next',
      handler: async ({ params, body, request }) =>
        login.passkeySignIn(params.applicationKey, cookieOf(request.headers), body.response as unknown as AuthenticationResponseJSON, request.ip),
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/passkey/register/options', auth: 'public', params: applicationParams, tags: ['oidc'],
      response: passkeyOptionsResponse, summary: 'Options for adding a passkey, right after an emailed-code sign-in',
      handler: async ({ params, request }) => ({ options: await login.passkeyRegistrationOptions(params.applicationKey, cookieOf(request.headers)) }),
    }),
    route({
      method: 'POST', path: '/login/{applicationKey}/passkey/register/verify', auth: 'public', params: applicationParams, body: passkeyBody, tags: ['oidc'],
      response: redirectResponse, summary: 'Store the new passkey; answers where the browser goes next',
      handler: async ({ params, body, request }) =>
        login.passkeyRegister(params.applicationKey, cookieOf(request.headers), body.response as unknown as RegistrationResponseJSON),
    }),
    route({
      method: 'GET', path: '/api/public/apps/{applicationKey}/login-methods', auth: 'public', params: applicationParams, tags: ['oidc'],
      response: loginMethodsResponse, summary: 'The sign-in methods the hosted login offers for an application',
      handler: async ({ params }) => {
        const { app, group } = await login.application(params.applicationKey);
        return {
          applicationKey: app.clientKey, appGroup: { key: group.publicKey, name: group.name, iconUrl: group.iconUrl, brandColor: group.brandColor },
          methods: await login.loginMethods(app.orgId, group),
        };
      },
    }),
    asset('/login/assets/login.js', 'login.js', 'text/javascript; charset=utf-8'),
    asset('/login/assets/login.css', 'login.css', 'text/css; charset=utf-8'),
    asset('/login/assets/webauthn.js', webauthnBundlePath(), 'text/javascript; charset=utf-8'),
    asset('/login/assets/aerie.js', 'aerie.js', 'text/javascript; charset=utf-8'),
    asset('/login/assets/consent.js', 'consent.js', 'text/javascript; charset=utf-8'),
  ];
}
