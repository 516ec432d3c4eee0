import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Next } from 'koa';
import { verifyEndUserAccessToken } from './access-tokens.ts';
import type { ProviderDeps, ProviderOrg } from './provider-factory.ts';

/**
 * Runs around every provider request and adjusts two answers:
 * - **introspection** (RFC 7662) of an access token: the provider does not store JWT access tokens,
 *   so it answers `active: false` for them; here the token is verified (the organization's key,
 *   issuer, audience) and the end user read fresh — a suspended or deleted end user, or a removed
 *   app-group access, is inactive at once. Only the client the token was issued to may introspect it.
 *   For refresh tokens the provider's answer stands, with the end user re-checked the same way.
 * - **token** responses carry `tenant_orgs` beside the tokens, as the access token does.
 * @see docs/api/signin.md "Introspection and userinfo"
 */
export function afterProviderRoutes(deps: ProviderDeps, org: ProviderOrg) {
  return async (ctx: KoaContextWithOIDC, next: Next): Promise<void> => {
    await next();
    if (ctx.status !== 200 || !ctx.oidc || typeof ctx.body !== 'object' || ctx.body === null) return;
    const body = ctx.body as Record<string, unknown>;
    if (ctx.oidc.route === 'token' && typeof body.access_token === 'string' && typeof body.id_token === 'string') {
      body.tenant_orgs = [];
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
    const live = await verifyEndUserAccessToken(deps, org, token);
    if (!live || !client || live.claims.client_id !== client.clientId) return;
    const { claims } = live;
    ctx.body = {
      active: true, token_type: 'Bearer', client_id: claims.client_id, sub: claims.sub, iss: claims.iss, aud: claims.aud,
      exp: claims.exp, iat: claims.iat, jti: claims.jti, scope: claims.scope, permissions: JSON.stringify(live.subject.permissions),
    };
  };
}
