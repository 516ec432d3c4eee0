import { createHash } from 'node:crypto';
import { reply, route, type AerieConfig, type RouteDef } from '../../../core/index.ts';
import type { SigningKeysService } from '../service-interfaces.ts';
import type { IssuerDiscovery } from '../api.ts';
import { JWS_ALG } from '../signing-keys.service.ts';
import { keysErrors } from '../errors.ts';
import { slugParams } from '../schemas/slug.params.ts';
import { jwks, openidConfigurationResponse } from '../schemas/responses.ts';

/**
 * Seconds clients may cache the JWKS. Short, because a rotated key leaves the set at once and
 * verifiers that cache longer keep accepting it that much longer.
 */
export const JWKS_MAX_AGE_SECONDS = 60;

/**
 * Each organization is an issuer, `{base_url}/api/public/orgs/{slug}`:
 * `GET {iss}/.well-known/jwks.json` (RFC 7517; `kid`, `use: sig`, `alg: RS256`; `Cache-Control` and
 * `ETag`, answering `If-None-Match` with 304) and `GET {iss}/.well-known/openid-configuration`
 * (issuer, jwks_uri, token endpoint, algorithms) — or, when the oidc plugin is enabled, its OpenID
 * provider's discovery document (`discovery`, the last contribution). Unknown organizations get 404.
 * @see docs/api/keys.md
 */
export function wellKnownRoutes(config: AerieConfig, signingKeys: SigningKeysService, discovery: readonly IssuerDiscovery[] = []): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/.well-known/jwks.json', auth: 'public', params: slugParams,
      response: { 200: { contentType: 'application/jwk-set+json', schema: jwks }, 304: null },
      summary: "The organization's JSON Web Key Set", tags: ['keys'],
      handler: async ({ params, request }) => {
        const jwks = await signingKeys.jwks(params.slug);
        if (!jwks) throw keysErrors.organizationNotFound();
        const body = JSON.stringify(jwks);
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        const headers = { 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}, must-revalidate`, etag, 'content-type': 'application/jwk-set+json' };
        if (request.headers['if-none-match'] === etag) return reply(304, undefined, headers);
        return reply(200, body, headers);
      },
    }),
    route({
      method: 'GET', path: '/api/public/orgs/{slug}/.well-known/openid-configuration', auth: 'public', params: slugParams,
      response: openidConfigurationResponse,
      summary: "The organization's issuer metadata", tags: ['keys'],
      handler: async ({ params }) => {
        if (!(await signingKeys.jwks(params.slug))) throw keysErrors.organizationNotFound();
        const provider = await discovery.at(-1)?.(params.slug);
        if (provider) return provider;
        const issuer = signingKeys.issuer(params.slug);
        return reply(200, {
          issuer,
          jwks_uri: `${issuer}/.well-known/jwks.json`,
          token_endpoint: `${config.baseUrl}/api/m2m/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['aerie_api_key'],
          scopes_supported: [],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [JWS_ALG],
          access_token_signing_alg_values_supported: [JWS_ALG],
        }, { 'cache-control': 'public, max-age=3600' });
      },
    }),
  ];
}
