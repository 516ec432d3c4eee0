/**
 * The OIDC client configuration rules of an application, by kind.
 * @see docs/api/apps.md "Client configuration rules"
 */
import { appsErrors } from './errors.ts';
import type { ApplicationKind, ClientConfig, GrantType, TokenEndpointAuthMethod } from './service-interfaces.ts';

/** Spa and Native run on the user's device and cannot keep a secret. */
export function isPublicKind(kind: ApplicationKind): boolean {
  return kind === 'Spa' || kind === 'Native';
}

/** The configuration an application of `kind` gets when the request leaves a member out. */
export function defaultConfig(kind: ApplicationKind): ClientConfig {
  const grantTypes: GrantType[] = kind === 'Machine' ? ['client_credentials'] : ['authorization_code', 'refresh_token'];
  const tokenEndpointAuthMethod: TokenEndpointAuthMethod = isPublicKind(kind) ? 'none' : 'client_secret_basic';
  return { redirectUris: [], postLogoutRedirectUris: [], grantTypes, allowedScopes: ['openid', 'profile', 'email'], pkceRequired: true, tokenEndpointAuthMethod, firstParty: true };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1']);

/**
 * Why `uri` is not an exact redirect URI, or `undefined` when it is one: absolute, `https` (or
 * `http` on localhost / 127.0.0.1 only), no wildcard, no fragment, no user information.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.includes('*')) return 'wildcards are not allowed';
  if (uri.includes('#')) return 'a fragment is not allowed';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'it must be an absolute URL';
  }
  if (url.username || url.password) return 'user information is not allowed';
  if (url.protocol === 'https:') return url.hostname ? undefined : 'it must name a host';
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) ? undefined : 'http is allowed only for localhost and 127.0.0.1';
  return 'it must use https';
}

/**
 * Checks a complete configuration against the rules of `kind`.
 * @throws 400 `VALIDATION_FAILED` (a redirect URI, with `field`), 400 `CLIENT_CONFIG_INVALID` (with `field`)
 */
export function checkConfig(kind: ApplicationKind, config: ClientConfig): void {
  for (const field of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    for (const uri of config[field]) {
      const problem = redirectUriProblem(uri);
      if (problem) throw appsErrors.invalidRedirectUri(field, uri, problem);
    }
  }
  const publicClient = isPublicKind(kind);
  if (kind !== 'Machine' && config.grantTypes.includes('client_credentials')) {
    throw appsErrors.clientConfigInvalid('grantTypes', 'client_credentials is only for Machine applications.');
  }
  if (kind === 'Machine' && config.grantTypes.some((g) => g !== 'client_credentials')) {
    throw appsErrors.clientConfigInvalid('grantTypes', 'A Machine application uses client_credentials only.');
  }
  if (publicClient && config.tokenEndpointAuthMethod !== 'none') {
    throw appsErrors.clientConfigInvalid('tokenEndpointAuthMethod', 'A public client (Spa, Native) authenticates with none.');
  }
  if (!publicClient && config.tokenEndpointAuthMethod === 'none') {
    throw appsErrors.clientConfigInvalid('tokenEndpointAuthMethod', 'A confidential client (Web, Machine) needs client_secret_basic or client_secret_post.');
  }
  if (publicClient && !config.pkceRequired) {
    throw appsErrors.clientConfigInvalid('pkceRequired', 'PKCE is always required for public clients (Spa, Native).');
  }
}
