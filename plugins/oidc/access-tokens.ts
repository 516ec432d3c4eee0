import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { ApplicationsService } from '../apps/api.ts';
import type { EndUserSignInService, EndUserSubject } from '../endusers/api.ts';
import type { SigningKeysService } from '../keys/api.ts';
import { appGroupAudience } from './token-policy.ts';

/** An end user's access token that verified, with the end user read fresh. */
export interface LiveAccessToken {
  claims: JWTPayload & { client_id: string; scope?: string };
  subject: EndUserSubject;
  appGroupId: string;
}

/**
 * Verifies an end user's access token for one organization and reads the end user fresh:
 * RS256 only (no other `alg` is even tried), `typ: at+jwt`, signed by the organization's active key
 * (JWKS of the keys plugin; a rotated key fails at once), `iss` = the organization's issuer,
 * not expired, issued to an application of this organization whose app group is the token's
 * audience; then the end user must be `Active` with access to that group. A token of another
 * organization, a machine token and a client-credentials token all fail here.
 * @returns the token and its end user, or `undefined` when any check fails
 * @see docs/api/signin.md "Introspection and userinfo"
 */
export async function verifyEndUserAccessToken(
  deps: { signingKeys: SigningKeysService; applications: ApplicationsService; signIn: EndUserSignInService },
  org: { id: string; slug: string },
  token: string,
): Promise<LiveAccessToken | undefined> {
  if (token.length > 8192 || token.split('.').length !== 3) return undefined;
  const jwks = await deps.signingKeys.jwks(org.slug);
  if (!jwks) return undefined;
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ['RS256'], typ: 'at+jwt', issuer: deps.signingKeys.issuer(org.slug) }));
  } catch {
    return undefined;
  }
  const clientId = claims.client_id;
  if (typeof clientId !== 'string' || typeof claims.sub !== 'string') return undefined;
  const app = await deps.applications.findByClientKey(clientId);
  if (!app || app.orgId !== org.id || app.status !== 'active') return undefined;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(appGroupAudience(app.appGroupId))) return undefined;
  const subject = await deps.signIn.subject(org.id, claims.sub, app.appGroupId);
  if (!subject) return undefined;
  return { claims: claims as LiveAccessToken['claims'], subject, appGroupId: app.appGroupId };
}
