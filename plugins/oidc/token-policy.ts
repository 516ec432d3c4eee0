/**
 * Lifetimes and names of what each organization's OpenID provider issues.
 * @see docs/api/signin.md "Tokens"
 */

/** Access tokens (RS256 JWT, RFC 9068): 15 minutes. Introspection and userinfo re-check the end user on every call. */
export const ACCESS_TOKEN_TTL_SECONDS = 900;
/** Authorization codes: one minute, single use. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** ID tokens: one hour. */
export const ID_TOKEN_TTL_SECONDS = 3600;
/** Refresh tokens: 14 days, rotated on every use (a reused one revokes its whole family). */
export const REFRESH_TOKEN_TTL_SECONDS = 14 * 86_400;
/** The provider's sign-in session and grant: 14 days. */
export const SESSION_TTL_SECONDS = 14 * 86_400;
/** A sign-in in progress (the hosted login page): 10 minutes. */
export const INTERACTION_TTL_SECONDS = 600;

/** The scopes an end user's access token may carry (beside them, `offline_access` asks for a refresh token). */
export const TOKEN_SCOPES = ['openid', 'profile', 'email'] as const;

/** Of requested scopes, those a grant may hold: `openid`, `offline_access` and {@link TOKEN_SCOPES}. */
export function grantableScopes(requested: readonly string[]): string[] {
  return requested.filter((s) => s === 'openid' || s === 'offline_access' || (TOKEN_SCOPES as readonly string[]).includes(s));
}

/**
 * The audience (RFC 8707 resource) of an app group's tokens: every application of the group shares it,
 * so one API behind the group accepts tokens of its web, single-page and native applications alike.
 * Never the organization API's audience: an end-user token is not a machine token.
 */
export function appGroupAudience(appGroupId: string): string {
  return `urn:aerie:app-group:${appGroupId}`;
}

/**
 * The access-token claim naming the grant (sign-in) the token was issued under: introspection,
 * userinfo and the owner gate check that the grant is still stored, so an access token of a
 * refresh-token family that was revoked (reuse detection, RFC 7009, sign-out) is inactive at once.
 * An opaque id; nothing accepts it as a credential.
 */
export const GRANT_ID_CLAIM = 'grant_id';

/** The provider's endpoints under the issuer `{base_url}/api/public/orgs/{slug}`. */
export const PROVIDER_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
  introspection: '/oauth/introspect',
  revocation: '/oauth/revoke',
  end_session: '/oauth/logout',
} as const;
