import { route, type RouteDef } from '../../../core/index.ts';
import type { SigninService } from '../signin.service.ts';
import { slugParams } from '../schemas/connection.schemas.ts';
import { oidcCallbackQuery } from '../schemas/signin.schemas.ts';

/** Largest SAML answer read at the ACS, in bytes (the form, base64). */
const MAX_SAML_FORM = 512 * 1024;

/** The `Cookie` header as a map (first value of a name wins). */
function cookiesOf(header: string | string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (Array.isArray(header) ? header.join(';') : header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

const userAgent = (h: Record<string, string | string[] | undefined>) => (typeof h['user-agent'] === 'string' ? h['user-agent'] : undefined);

/**
 * Sign-in through the organization's IdP connection: `/idp/{slug}/login` (302 to the IdP), the
 * OpenID callback and the SAML assertion consumer service (303 to the dashboard with the session
 * cookie). Public: the browser carries the flow cookie. @see docs/api/federation.md "Signing in"
 */
export function signinRoutes(signin: SigninService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/idp/{slug}/login', auth: 'public', params: slugParams, response: { 302: null },
      summary: "Start signing in through the organization's IdP (302 to it, flow cookie set)", tags: ['federation'],
      handler: ({ params, request }) => signin.start(params.slug, request.ip),
    }),
    route({
      method: 'GET', path: '/idp/{slug}/callback', auth: 'public', params: slugParams, query: oidcCallbackQuery, response: { 303: null },
      summary: 'OpenID Connect callback: code exchanged, ID token validated, member signed in (303 to the dashboard)', tags: ['federation'],
      handler: ({ params, query, request }) => signin.finish({
        slug: params.slug, protocol: 'oidc', query: new URLSearchParams(query as Record<string, string>).toString(),
        cookies: cookiesOf(request.headers.cookie), userAgent: userAgent(request.headers), ip: request.ip, accept: request.headers.accept,
      }),
    }),
    route({
      method: 'POST', path: '/idp/{slug}/saml/acs', auth: 'public', params: slugParams, rawBody: { maxBytes: MAX_SAML_FORM, form: true }, response: { 303: null },
      summary: 'SAML assertion consumer service (HTTP-POST): assertion validated, member signed in (303 to the dashboard)', tags: ['federation'],
      handler: ({ params, form, request }) => signin.finish({
        slug: params.slug, protocol: 'saml', samlResponse: form.get('SAMLResponse') ?? undefined,
        cookies: cookiesOf(request.headers.cookie), userAgent: userAgent(request.headers), ip: request.ip, accept: request.headers.accept,
      }),
    }),
  ];
}
