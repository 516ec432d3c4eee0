import { delegate, reply, route, type RouteDef } from '../../../core/index.ts';
import { verifyEndUserAccessToken } from '../access-tokens.ts';
import { oidcErrors } from '../errors.ts';
import type { ProviderDeps } from '../provider-factory.ts';
import type { OrgProviders } from '../providers.ts';
import { resumeParams, slugParams } from '../schemas/params.ts';
import { providerJson, userinfoResponse } from '../schemas/responses.ts';

/** A form-encoded UserInfo request carries one access token (at most 8 KiB, as verification accepts). */
const USERINFO_BODY_MAX_BYTES = 16 * 1024;

const JSON_ANSWER = { contentType: 'application/json', schema: providerJson, description: 'The provider\'s JSON answer (errors as RFC 6749 `{error, error_description}`)' };
const REDIRECT = { 303: null, 302: null };
const PAGE = { contentType: 'text/html', description: 'A page of the provider (sign-out confirmation, an error it cannot redirect)' };
/** `response_mode=form_post` (OAuth 2.0 Form Post Response Mode) answers the code as a self-posting form. */
const FORM_POST = { contentType: 'text/html', description: 'The response to the client as a self-posting form (response_mode=form_post)' };

/**
 * The OpenID provider of each organization under its issuer `{base_url}/api/public/orgs/{slug}`:
 * every route hands the request to the organization's oidc-provider (`delegate`), which answers in
 * OAuth 2.0 / OpenID Connect form (not the kernel's error envelope). `userinfo` is answered here,
 * from the end user read fresh, because access tokens are JWTs the provider does not store.
 * The discovery document (`/.well-known/openid-configuration`) is the keys plugin's route, which
 * asks this plugin; the JWKS is the keys plugin's.
 * @see docs/api/signin.md
 */
export function providerRoutes(providers: OrgProviders, deps: ProviderDeps): RouteDef[] {
  const handOver = async (slug: string) => {
    const found = await providers.forSlug(slug);
    if (!found || found.org.slug !== slug) throw oidcErrors.organizationNotFound();
    return delegate(found.mountPath, found.handle);
  };
  const tags = ['oidc'];
  /**
   * UserInfo for the access token of the request: `Authorization: Bearer`, or (POST) the form field
   * `access_token` of an `application/x-www-form-urlencoded` body (RFC 6750 2.2); one of the two only.
   */
  const userinfo = async (slug: string, headers: Record<string, string | string[] | undefined>, fields?: URLSearchParams) => {
    const org = await providers.forSlug(slug);
    const header = headers.authorization === undefined ? undefined : String(headers.authorization);
    const fromHeader = header === undefined ? undefined : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header)?.[1];
    const form = fields?.getAll('access_token') ?? [];
    // RFC 6750 2: one method per request, one token.
    if (form.length > 1 || (form.length === 1 && header !== undefined)) {
      return reply(400, { error: 'invalid_request', error_description: 'Send the access token once: in the Authorization header or as access_token in the form body.' },
        { 'www-authenticate': 'Bearer error="invalid_request"' });
    }
    const token = fromHeader ?? form[0];
    const live = org && token ? await verifyEndUserAccessToken(deps, org.org, token) : undefined;
    if (!live) {
      return reply(401, { error: 'invalid_token', error_description: 'The access token is missing, invalid, expired, or its end user may no longer sign in.' },
        { 'www-authenticate': 'Bearer error="invalid_token"' });
    }
    const scopes = new Set(String(live.claims.scope ?? '').split(' '));
    if (!scopes.has('openid')) return reply(403, { error: 'insufficient_scope', error_description: 'The access token lacks the openid scope.' }, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="openid"' });
    const { subject } = live;
    return {
      sub: subject.id,
      ...(scopes.has('email') ? { email: subject.email, email_verified: subject.emailVerified } : {}),
      ...(scopes.has('profile') && subject.displayName ? { name: subject.displayName } : {}),
    };
  };
  /** Routes a browser visits: their errors are pages (the fuzz test and OpenAPI readers know `pages`). */
  const browser = ['oidc', 'pages'];
  return [
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/oauth/authorize', auth: 'public', params: slugParams, tags: browser, response: { 200: FORM_POST, ...REDIRECT, 400: PAGE },
      summary: 'Authorization endpoint (OpenID Connect Core 3.1.2): starts a sign-in, redirecting to the hosted login', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/authorize', auth: 'public', params: slugParams, tags: browser, response: { 200: FORM_POST, ...REDIRECT, 400: PAGE },
      summary: 'Authorization endpoint, form-posted', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/oauth/authorize/{uid}', auth: 'public', params: resumeParams, tags: browser, response: { 200: FORM_POST, ...REDIRECT },
      summary: 'Where the hosted login sends the browser back once the end user is signed in', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/token', auth: 'public', params: slugParams, tags, response: JSON_ANSWER,
      summary: 'Token endpoint (RFC 6749): authorization_code with PKCE, refresh_token (rotated), client_credentials', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/introspect', auth: 'public', params: slugParams, tags, response: JSON_ANSWER,
      summary: 'Token introspection (RFC 7662), the end user read fresh', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/revoke', auth: 'public', params: slugParams, tags, response: { 200: { contentType: 'text/plain', description: 'An empty body (RFC 7009 2.2), also for an unknown token' } },
      summary: 'Token revocation (RFC 7009)', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/oauth/logout', auth: 'public', params: slugParams, tags: browser, response: { 200: PAGE, ...REDIRECT },
      summary: 'RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0)', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/logout', auth: 'public', params: slugParams, tags: browser, response: { 200: PAGE, ...REDIRECT },
      summary: 'RP-initiated logout, form-posted', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/logout/confirm', auth: 'public', params: slugParams, tags: browser, response: { 200: PAGE, ...REDIRECT },
      summary: 'The sign-out confirmation form posts here', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/oauth/logout/success', auth: 'public', params: slugParams, tags: browser, response: { 200: PAGE },
      summary: 'Shown after a sign-out with nowhere registered to return to', handler: ({ params }) => handOver(params.slug),
    }),
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/oauth/userinfo', auth: 'public', params: slugParams, tags, response: userinfoResponse,
      summary: 'UserInfo (OpenID Connect Core 5.3): claims of the access token\'s end user, by its scopes, read fresh',
      handler: async ({ params, request }) => userinfo(params.slug, request.headers),
    }),
    route({
      method: 'POST', path: '/api/public/orgs/{slug}/oauth/userinfo', auth: 'public', params: slugParams, tags, response: userinfoResponse,
      rawBody: { maxBytes: USERINFO_BODY_MAX_BYTES, form: true },
      summary: 'UserInfo, posted: the access token as bearer, or as `access_token` in a form-encoded body (RFC 6750 2.2)',
      handler: async ({ params, request, form }) => userinfo(params.slug, request.headers, form),
    }),
  ];
}
