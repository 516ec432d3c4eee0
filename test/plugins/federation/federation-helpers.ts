import { expect } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { LocalOidcProvider } from '../../helpers/local-oidc-provider.ts';

/** A browser's cookie session at Aerie: the cookie pair and the session's CSRF token. */
export interface CookieSession {
  cookie: string;
  csrf: string;
  token: string;
}

/** The `name=value` of the Set-Cookie header named `name`, or undefined. */
export function setCookie(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0];
}

/** Signs `email` in by emailed code into a cookie session (what Aerie's own pages do). */
export async function cookieSignIn(aerie: TestAerie, email: string): Promise<CookieSession> {
  const sent = await aerie.request('POST', '/api/v1/users/registration/email', { body: { email } });
  expect(sent.status).toBe(202);
  const res = await fetch(`${aerie.url}/api/v1/users/verification/email`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: aerie.url }, body: JSON.stringify({ email, code: aerie.code(email), session: 'cookie' }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const cookie = setCookie(res, 'aerie_session')!;
  return { cookie, csrf: (await res.json()).csrfToken, token: cookie.split('=')[1]! };
}

/**
 * Signs `user` in through `slug`'s OpenID connection, as a browser does: `/idp/{slug}/login`, the
 * IdP, then the callback. Answers the callback's response (not followed).
 */
export async function oidcSignIn(aerie: TestAerie, idp: LocalOidcProvider, slug: string, user: LocalOidcProvider['user'], headers: Record<string, string> = {}): Promise<Response> {
  idp.user = user;
  const login = await fetch(`${aerie.url}/idp/${slug}/login`, { redirect: 'manual' });
  expect(login.status).toBe(302);
  return oidcFinish(aerie, idp, login.headers.get('location')!, setCookie(login, 'aerie_idp_flow')!, headers);
}

/** From the IdP's authorization URL to Aerie's callback with the flow cookie. */
export async function oidcFinish(aerie: TestAerie, idp: LocalOidcProvider, authorizeUrl: string, flowCookie: string, headers: Record<string, string> = {}): Promise<Response> {
  const back = await idp.browse(authorizeUrl);
  expect(back.origin).toBe(aerie.url);
  return fetch(aerie.url + back.pathname + back.search, { redirect: 'manual', headers: { cookie: flowCookie, ...headers } });
}

/** The organization session a successful callback opened: its cookie and the CSRF token from the 303's fragment. */
export function sessionOf(res: Response): CookieSession {
  expect(res.status).toBe(303);
  const cookie = setCookie(res, 'aerie_session')!;
  const hash = new URL(res.headers.get('location')!).hash.slice(1);
  return { cookie, csrf: new URLSearchParams(hash).get('csrf_token')!, token: cookie.split('=')[1]! };
}

/** A request with a cookie session: on writes its CSRF token and Aerie's own origin, as Aerie's pages send them. */
export function withCookie(aerie: TestAerie, session: CookieSession, method: string, path: string, body?: unknown): Promise<Response> {
  const write = method !== 'GET' && method !== 'HEAD';
  return fetch(aerie.url + path, {
    method, redirect: 'manual',
    headers: {
      cookie: session.cookie, ...(write ? { 'x-csrf-token': session.csrf, origin: aerie.url } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** Configures `slug`'s IdP connection as the local OpenID provider (201 expected). */
export async function configureOidc(aerie: TestAerie, idp: LocalOidcProvider, slug: string, ownerToken: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await aerie.request('POST', `/api/org/${slug}/idp-connections`, {
    token: ownerToken, body: { provider: 'custom-oidc', oidc_discovery_url: `${idp.issuer}/.well-known/openid-configuration`, oidc_client_id: 'aerie', oidc_client_secret: 'idp-secret', ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A SCIM token of `slug`. */
export async function scimToken(aerie: TestAerie, slug: string, ownerToken: string): Promise<string> {
  const res = await aerie.request('POST', `/api/org/${slug}/settings/scim/tokens`, { token: ownerToken, body: { name: 'IdP' } });
  expect(res.status).toBe(201);
  return res.body.value as string;
}

/** `POST /scim/v2/{slug}/Users` for `email`. */
export function scimCreate(aerie: TestAerie, slug: string, token: string, email: string) {
  return aerie.request('POST', `/scim/v2/${slug}/Users`, {
    token, headers: { 'content-type': 'application/scim+json' },
    body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, active: true, emails: [{ value: email, type: 'work', primary: true }] },
  });
}
