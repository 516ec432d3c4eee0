import * as client from 'openid-client';
import { EgressError, type EgressFetch } from '../egress/egress.types.ts';

/**
 * Signing in through an upstream OpenID provider (authorization code, PKCE, state, nonce, ID token
 * verified against the provider's JWKS), every request through `core.egress`: workforce IdP
 * connections (federation) and social sign-in on the hosted login (oidc) share it.
 */

/** The upstream provider as a relying party needs it, with its decrypted client secret. */
export interface OidcSigninConfig {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string | null;
  clientId: string;
  clientSecret: string | null;
}

/** The identity an IdP vouched for. */
export interface IdpIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/** A sign-in refused for `reason` (a fixed word, safe to record and show; never a token). */
export class SigninRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SigninRefused';
  }
}

const SCOPE = 'openid email profile';

/**
 * The openid-client configuration of a connection: every request to the IdP goes through `fetch`
 * (`core.egress`); the client authenticates with `client_secret_basic` when it has a secret, else
 * as a public client (PKCE). A manual configuration without a JWKS URL reads it from the issuer's
 * discovery document (which must name the same issuer).
 */
async function configuration(c: OidcSigninConfig, fetch: EgressFetch): Promise<client.Configuration> {
  const auth = c.clientSecret ? client.ClientSecretBasic(c.clientSecret) : client.None();
  let jwksUri = c.jwksUri;
  if (!jwksUri) {
    const found = await client.discovery(new URL(c.issuer), c.clientId, undefined, auth, { [client.customFetch]: fetch as never });
    jwksUri = found.serverMetadata().jwks_uri ?? null;
    if (!jwksUri) throw new SigninRefused('jwks_missing');
  }
  const config = new client.Configuration(
    { issuer: c.issuer, authorization_endpoint: c.authorizationEndpoint, token_endpoint: c.tokenEndpoint, jwks_uri: jwksUri }, c.clientId, undefined, auth,
  );
  config[client.customFetch] = fetch as never;
  // openid-client trusts an ID token from the token endpoint on TLS alone unless told to verify its signature.
  client.enableNonRepudiationChecks(config);
  return config;
}

/**
 * Reads an OpenID provider's discovery document (`{issuer}/.well-known/openid-configuration`)
 * through `fetch` (`core.egress`); openid-client checks that it names the same issuer.
 * @returns the endpoints a relying party signs in with
 * @throws SigninRefused `discovery_failed` (unreachable, not JSON, another issuer, endpoints missing)
 */
export async function discoverProvider(issuer: string, fetch: EgressFetch): Promise<Omit<OidcSigninConfig, 'clientId' | 'clientSecret'>> {
  try {
    const found = await client.discovery(new URL(issuer), 'discovery', undefined, undefined, { [client.customFetch]: fetch as never });
    const meta = found.serverMetadata();
    if (!meta.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri) throw new SigninRefused('discovery_failed');
    return { issuer: meta.issuer, authorizationEndpoint: meta.authorization_endpoint, tokenEndpoint: meta.token_endpoint, jwksUri: meta.jwks_uri };
  } catch {
    throw new SigninRefused('discovery_failed');
  }
}

/**
 * Starts an authorization-code flow with PKCE (S256), `state` and `nonce`: answers the URL to send
 * the browser to and the values to keep server-side.
 */
export async function startOidc(c: OidcSigninConfig, fetch: EgressFetch, redirectUri: string): Promise<{ url: string; state: string; nonce: string; codeVerifier: string }> {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const config = new client.Configuration(
    { issuer: c.issuer, authorization_endpoint: c.authorizationEndpoint, token_endpoint: c.tokenEndpoint }, c.clientId,
  );
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: SCOPE, response_type: 'code', state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
  });
  return { url: url.href, state, nonce, codeVerifier };
}

/**
 * Finishes the flow at the callback: checks `state`, exchanges the code (with the PKCE verifier)
 * and validates the ID token — signature against the IdP's JWKS (also for a token from the token
 * endpoint, which openid-client would otherwise take on TLS alone), `iss`, `aud`, `nonce`, `exp`.
 * @param callbackUrl - the callback URL as the browser reached it (with `code` and `state`).
 * @throws SigninRefused (`state_mismatch`, `iss_mismatch`, `nonce_mismatch`, `aud_mismatch`,
 *   `idp_error`, `idp_unreachable`, `id_token_signature_invalid`, `id_token_expired`, `id_token_invalid`, `jwks_missing`)
 */
export async function finishOidc(
  c: OidcSigninConfig, fetch: EgressFetch, callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string },
): Promise<IdpIdentity> {
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    const config = await configuration(c, fetch);
    tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
    });
  } catch (err) {
    throw new SigninRefused(reasonOf(err));
  }
  const claims = tokens.claims();
  if (!claims) throw new SigninRefused('id_token_invalid');
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : null;
  // Entra ID sends no `email_verified`: its `xms_edov` (email domain owner verified) stands in for it.
  const verified = claims.email_verified === undefined ? [true, 'true', '1', 1].includes(claims.xms_edov as never) : claims.email_verified === true || claims.email_verified === 'true';
  return { subject: claims.sub, email, emailVerified: verified, name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null };
}

/**
 * A fixed reason word for an openid-client failure (its message may quote IdP text; never stored).
 * openid-client wraps oauth4webapi's error, whose `cause` names the claim compared.
 */
function reasonOf(err: unknown): string {
  if (err instanceof SigninRefused) return err.reason;
  if (err instanceof EgressError || (err as { cause?: unknown }).cause instanceof EgressError) return 'idp_unreachable';
  const outer = err as { code?: string; message?: string; cause?: { code?: string; message?: string; cause?: { claim?: string } } };
  const inner = outer.cause && typeof outer.cause === 'object' && 'message' in outer.cause ? outer.cause : outer;
  const claim = (inner as { cause?: { claim?: unknown } }).cause?.claim;
  if (typeof claim === 'string' && /^(iss|aud|nonce|azp)$/.test(claim)) return `${claim}_mismatch`;
  if (claim === 'exp') return 'id_token_expired';
  const message = String(inner.message ?? '');
  if (/signature verification failed/i.test(message)) return 'id_token_signature_invalid';
  if (/"state"/.test(message)) return 'state_mismatch';
  if (/"iss"/.test(message)) return 'iss_mismatch';
  if (outer.code === 'OAUTH_RESPONSE_BODY_ERROR' || outer.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR') return 'idp_error';
  return 'id_token_invalid';
}
