import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Clock, Database } from '../../core/index.ts';
import type { ApplicationDto, ApplicationsService } from '../apps/api.ts';
import type { EndUserSignInService, EndUserSubject } from '../endusers/api.ts';
import type { SigningKeysService } from '../keys/api.ts';
import { OrgPayloadAdapter } from './adapter.ts';
import { appGroupAudience, GRANT_ID_CLAIM } from './token-policy.ts';

/** What verifying an access token needs. */
export interface AccessTokenDeps {
  db: Database;
  clock: Clock;
  signingKeys: SigningKeysService;
  applications: ApplicationsService;
  signIn: EndUserSignInService;
}

/** The claims of a verified access token. */
export type AccessTokenClaims = JWTPayload & { client_id: string; scope?: string; [GRANT_ID_CLAIM]?: string };

/** An end user's access token that verified, with the end user read fresh. */
export interface LiveAccessToken {
  claims: AccessTokenClaims;
  subject: EndUserSubject;
  appGroupId: string;
}

/** A client-credentials access token (a Machine application's own) that verified, with its application read fresh. */
export interface LiveClientToken {
  claims: AccessTokenClaims;
  app: ApplicationDto & { orgId: string };
}

/**
 * The checks every access token of an organization passes: RS256 only (no other `alg` is even
 * tried), `typ: at+jwt`, signed by the organization's active key (JWKS of the keys plugin; a rotated
 * key fails at once), `iss` = the organization's issuer, not expired, issued to an active application
 * of this organization whose app group is the token's audience.
 */
async function verifyAccessTokenJwt(
  deps: Pick<AccessTokenDeps, 'signingKeys' | 'applications'>, org: { id: string; slug: string }, token: string,
): Promise<{ claims: AccessTokenClaims; app: ApplicationDto & { orgId: string } } | undefined> {
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
  return { claims: claims as AccessTokenClaims, app };
}

/**
 * Verifies an end user's access token for one organization and reads its state fresh: the checks of
 * every access token (RS256 only, `typ: at+jwt`, the organization's active key and issuer, not
 * expired, an active application of this organization whose app group is the audience); then the
 * grant it was issued under (claim `grant_id`) must still be stored — a refresh-token family revoked
 * by reuse detection or RFC 7009, or a sign-out, removes it — for the same end user and client, and
 * the end user must be `Active` with access to that group. A token of another organization, a
 * machine token and a client-credentials token all fail here.
 * @returns the token and its end user, or `undefined` when any check fails
 * @see docs/api/signin.md "Introspection and userinfo"
 */
export async function verifyEndUserAccessToken(
  deps: AccessTokenDeps, org: { id: string; slug: string }, token: string,
): Promise<LiveAccessToken | undefined> {
  const verified = await verifyAccessTokenJwt(deps, org, token);
  if (!verified) return undefined;
  const { claims, app } = verified;
  const sub = claims.sub!;
  if (sub === claims.client_id) return undefined;
  const grantId = claims[GRANT_ID_CLAIM];
  if (typeof grantId !== 'string') return undefined;
  const grant = await new OrgPayloadAdapter('Grant', org.id, deps.db, deps.clock, async () => undefined).find(grantId);
  if (!grant || grant.accountId !== sub || grant.clientId !== claims.client_id) return undefined;
  const subject = await deps.signIn.subject(org.id, sub, app.appGroupId);
  if (!subject) return undefined;
  return { claims, subject, appGroupId: app.appGroupId };
}

/**
 * Verifies a client-credentials access token (a Machine application's, `sub` = its client id) for one
 * organization with the application read fresh: the checks of every access token, then the
 * application must still have the `client_credentials` grant and its secret must not have been
 * rotated since the token was issued (a token issued within the second of the rotation stays valid:
 * `iat` has whole seconds). A disabled or deleted application fails the common checks.
 * @returns the token and its application, or `undefined` when any check fails
 * @see docs/api/signin.md "Introspection and userinfo"
 */
export async function verifyClientCredentialsToken(
  deps: Pick<AccessTokenDeps, 'signingKeys' | 'applications'>, org: { id: string; slug: string }, token: string,
): Promise<LiveClientToken | undefined> {
  const verified = await verifyAccessTokenJwt(deps, org, token);
  if (!verified) return undefined;
  const { claims, app } = verified;
  if (claims.sub !== claims.client_id || !app.grantTypes.includes('client_credentials')) return undefined;
  const rotatedAt = app.secretRotatedAt ? Math.floor(new Date(app.secretRotatedAt).getTime() / 1000) : undefined;
  if (rotatedAt !== undefined && (typeof claims.iat !== 'number' || claims.iat < rotatedAt)) return undefined;
  return verified;
}
