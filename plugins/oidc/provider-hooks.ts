import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Next } from 'koa';
import { verifyClientCredentialsToken, verifyEndUserAccessToken } from './access-tokens.ts';
import type { AccessTokenClaims } from './access-tokens.ts';
import type { ProviderDeps, ProviderOrg } from './provider-factory.ts';

/**
 * Runs around every provider request and adjusts two answers:
 * - **introspection** (RFC 7662) of an access token: the provider does not store JWT access tokens,
 *   so it answers `active: false` for them; here the token is verified (the organization's key,
 *   issuer, audience) and the end user read fresh — a suspended or deleted end user, or a removed
 *   app-group access, is inactive at once; a Machine application's client-credentials token is
 *   active while the application is active and its secret unrotated. Only the client the token was
 *   issued to may introspect it.
 *   For refresh tokens the provider's answer stands, with the end user re-checked the same way.
 * - **token** responses carry `tenant_orgs` beside the tokens, as the access token does.
 * @see docs/api/signin.md "Introspection and userinfo"
 */
export function afterProviderRoutes(deps: ProviderDeps, org: ProviderOrg) {
  return async (ctx: KoaContextWithOIDC, next: Next): Promise<void> => {
    await next();
    if (!ctx.oidc || typeof ctx.body !== 'object' || ctx.body === null) return;
    const body = ctx.body as Record<string, unknown>;
    // The provider refuses JWTs at introspection (it does not store them) after authenticating the client.
    if (ctx.oidc.route === 'introspection' && ctx.status === 400 && body.error === 'unsupported_token_type' && ctx.oidc.client) {
      ctx.status = 200;
      ctx.body = await introspectAccessToken(deps, org, String(ctx.oidc.params?.token ?? ''), ctx.oidc.client.clientId);
      return;
    }
    if (ctx.status !== 200) return;
    if (ctx.oidc.route === 'token' && typeof body.access_token === 'string' && typeof body.id_token === 'string') {
      // The same list as the access token's claim, which was computed for this token just now.
      const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1] ?? '', 'base64url').toString('utf8') || '{}') as { tenant_orgs?: unknown };
      body.tenant_orgs = Array.isArray(claims.tenant_orgs) ? claims.tenant_orgs : [];
      return;
    }
    if (ctx.oidc.route !== 'introspection') return;
    const token = String(ctx.oidc.params?.token ?? '');
    const client = ctx.oidc.client;
    if (body.active === true) {
      const sub = typeof body.sub === 'string' ? body.sub : undefined;
      if (sub && client) {
        const live = await ctx.oidc.provider.Client.find(String(body.client_id)) as unknown as { aerie_app_group_id?: string } | undefined;
        const groupId = live?.aerie_app_group_id;
        if (!groupId || !(await deps.signIn.subject(org.id, sub, groupId))) ctx.body = { active: false };
      }
      return;
    }
    if (client) ctx.body = await introspectAccessToken(deps, org, token, client.clientId);
  };
}

/**
 * RFC 7662 answer for a JWT access token introspected by `clientId`: an end user's (the end user read
 * fresh, `permissions` current) or a Machine application's client-credentials token (the application
 * read fresh: inactive once it is disabled or deleted, loses the grant, or its secret is rotated).
 */
async function introspectAccessToken(deps: ProviderDeps, org: ProviderOrg, token: string, clientId: string): Promise<Record<string, unknown>> {
  const live = await verifyEndUserAccessToken(deps, org, token);
  if (live) {
    if (live.claims.client_id !== clientId) return { active: false };
    return { ...rfc7662(live.claims), permissions: JSON.stringify(live.subject.permissions) };
  }
  const machine = await verifyClientCredentialsToken(deps, org, token);
  if (!machine || machine.claims.client_id !== clientId) return { active: false };
  return rfc7662(machine.claims);
}

function rfc7662(claims: AccessTokenClaims): Record<string, unknown> {
  return {
    active: true, token_type: 'Bearer', client_id: claims.client_id, sub: claims.sub, iss: claims.iss, aud: claims.aud,
    exp: claims.exp, iat: claims.iat, jti: claims.jti, scope: claims.scope,
  };
}
