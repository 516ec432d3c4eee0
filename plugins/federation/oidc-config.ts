import { EgressError, type Egress } from '../../core/index.ts';
import { federationErrors } from './errors.ts';

/** The OpenID provider endpoints a connection signs in with. */
export interface OidcEndpoints {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string | null;
}

const MAX_DOCUMENT = 256 * 1024;

/**
 * Reads an OpenID Connect discovery document through `core.egress` (https, no private addresses, no
 * redirects, 256 KiB, 10 s): `issuer`, `authorization_endpoint`, `token_endpoint` must be https URLs.
 * @throws AerieError 400 `IDP_DISCOVERY_FAILED` with the reason.
 */
export async function discover(egress: Egress, url: string): Promise<OidcEndpoints> {
  let body: unknown;
  try {
    const res = await egress.get(url, { headers: { accept: 'application/json' }, timeoutMs: 10_000, maxResponseBytes: MAX_DOCUMENT });
    if (res.status !== 200) throw federationErrors.discovery('oidc_discovery_url', `HTTP ${res.status}`);
    body = JSON.parse(res.body.toString('utf8'));
  } catch (err) {
    if (err instanceof EgressError) throw federationErrors.discovery('oidc_discovery_url', err.detail);
    if (err instanceof SyntaxError) throw federationErrors.discovery('oidc_discovery_url', 'the answer is not JSON');
    throw err;
  }
  const doc = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const https = (name: string) => {
    const v = doc[name];
    if (typeof v !== 'string' || !/^https:\/\/[^\s]+$/.test(v) || v.length > 2048) throw federationErrors.discovery('oidc_discovery_url', `${name} is missing or not an https URL`);
    return v;
  };
  return {
    issuer: https('issuer'), authorizationEndpoint: https('authorization_endpoint'), tokenEndpoint: https('token_endpoint'),
    jwksUri: typeof doc.jwks_uri === 'string' ? https('jwks_uri') : null,
  };
}
