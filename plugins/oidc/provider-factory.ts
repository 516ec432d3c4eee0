import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Clock, CryptoService, Database } from '../../core/index.ts';
import type { ApplicationsService } from '../apps/api.ts';
import type { EndUserSignInService } from '../endusers/api.ts';
import type { SigningKeysService } from '../keys/api.ts';
import { OrgPayloadAdapter } from './adapter.ts';
import { clientMetadata, EXTRA_CLIENT_METADATA } from './client-metadata.ts';
import { consentedScopes } from './end-user-consents.ts';
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-pages.ts';
import { afterProviderRoutes } from './provider-hooks.ts';
import {
  ACCESS_TOKEN_TTL_SECONDS, appGroupAudience, AUTHORIZATION_CODE_TTL_SECONDS, GRANT_ID_CLAIM, ID_TOKEN_TTL_SECONDS, INTERACTION_TTL_SECONDS, PROVIDER_ROUTES,
  REFRESH_TOKEN_TTL_SECONDS, SESSION_TTL_SECONDS, TOKEN_SCOPES, grantableScopes,
} from './token-policy.ts';

/** What building an organization's provider needs. */
export interface ProviderDeps {
  db: Database;
  clock: Clock;
  crypto: CryptoService;
  signingKeys: SigningKeysService;
  applications: ApplicationsService;
  signIn: EndUserSignInService;
  /** `{login_url}`: the hosted login pages. */
  loginUrl: string;
  /** Where oidc-provider's own warnings go. */
  logger?: Logger;
  /** `tenant_orgs` of a token from a sign-in with an Aerie account (aerie-account.ts); `[]` without. */
  tenantOrgs?: (orgId: string, appGroupId: string, endUserId: string) => Promise<Array<{ slug: string; name: string }>>;
}

let library: Promise<typeof import('oidc-provider')> | undefined;

/**
 * oidc-provider, imported on the first provider build. On import it prints a warning for runtimes
 * older than Node.js 22 LTS to the console; Aerie targets Node.js 20 (and works on 22), so that
 * warning goes to the structured log at `warn` instead of interrupting the start-up output.
 */
function oidcProvider(logger: Logger | undefined): Promise<typeof import('oidc-provider')> {
  library ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => (logger ? logger.warn({ component: 'oidc-provider' }, args.map(String).join(' ')) : warn(...args));
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return library;
}

/** An organization as its provider needs it. */
export interface ProviderOrg {
  id: string;
  slug: string;
}

/** The keys an organization's provider signs its cookies with (derived from the master key, one set per organization). */
export function cookieKeys(crypto: CryptoService, orgId: string): string[] {
  return [crypto.deriveKey(`oidc.cookies:${orgId}`).toString('base64url')];
}

/** The provider's cookie names (scoped by path: the session to the issuer, a sign-in to its login page). */
export const COOKIE_NAMES = { session: 'aerie_op_session', interaction: 'aerie_op_interaction', resume: 'aerie_op_resume' } as const;

type AerieClient = { clientId: string; aerie_app_group_id?: string; aerie_pkce_required?: boolean; aerie_first_party?: boolean; clientAuthMethod: string };

/**
 * Builds one organization's OpenID provider (oidc-provider): issuer `{base_url}/api/public/orgs/{slug}`,
 * signing with the organization's active RS256 key `kid`, storage on `oidc.payloads` bound to the
 * organization, clients read from its applications, end users from the endusers plugin.
 *
 * What is on: authorization code (PKCE S256, required for public clients and where the application
 * says so), refresh tokens rotated on every use (a reused one revokes the grant: oidc-provider's
 * reuse detection), client credentials, userinfo, revocation (RFC 7009), introspection (RFC 7662),
 * RP-initiated logout. Access tokens are RS256 JWTs (RFC 9068) for the app group's audience with the
 * `permissions` claim. Cookies are signed with a key derived for this organization and scoped to its
 * issuer path. Nothing the OpenID Foundation's Basic and Config OP profiles check is switched off.
 * @see docs/api/signin.md
 */
export async function buildProvider(deps: ProviderDeps, org: ProviderOrg, kid: string): Promise<Provider> {
  const { default: OidcProvider, errors } = await oidcProvider(deps.logger);
  const issuer = deps.signingKeys.issuer(org.slug);
  const mountPath = new URL(issuer).pathname;
  const signer = await deps.signingKeys.signer(kid);
  const privateJwk = { ...signer.privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

  const clientSource = async (clientId: string) => {
    const app = await deps.applications.findByClientKey(clientId);
    if (!app || app.orgId !== org.id) return undefined;
    return clientMetadata(app, app.appGroupId);
  };
  const groupOf = (client: unknown) => (client as AerieClient | undefined)?.aerie_app_group_id;

  const configuration: Configuration = {
    // A code or refresh token used twice at once: only one use wins, the other is a reuse (the grant is revoked).
    adapter: (model: string) => new OrgPayloadAdapter(model, org.id, deps.db, deps.clock, clientSource,
      (kind) => new errors.InvalidGrant(kind === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed')),
    jwks: { keys: [privateJwk as never] },
    clients: [],
    extraClientMetadata: { properties: [...EXTRA_CLIENT_METADATA] },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    responseTypes: ['code'],
    scopes: [...TOKEN_SCOPES, 'offline_access'],
    // amr with openid: a relying party sees how the end user signed in (otp: emailed code, hwk: passkey).
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'], acr: null, auth_time: null, sid: null, iss: null },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'], userinfoSigningAlgValues: ['RS256'], introspectionSigningAlgValues: ['RS256'],
      authorizationSigningAlgValues: ['RS256'], requestObjectSigningAlgValues: ['RS256'], clientAuthSigningAlgValues: ['RS256'],
    },
    routes: PROVIDER_ROUTES,
    cookies: {
      keys: cookieKeys(deps.crypto, org.id),
      names: { ...COOKIE_NAMES },
      long: { httpOnly: true, sameSite: 'lax', path: mountPath },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS, AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS, ClientCredentials: ACCESS_TOKEN_TTL_SECONDS,
      IdToken: ID_TOKEN_TTL_SECONDS, RefreshToken: REFRESH_TOKEN_TTL_SECONDS, Session: SESSION_TTL_SECONDS, Grant: SESSION_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
    },
    pkce: { required: (_ctx, client) => (client as unknown as AerieClient).aerie_pkce_required === true || client.clientAuthMethod === 'none' },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: async (ctx) => `${deps.loginUrl}/login/${encodeURIComponent(ctx.oidc.client!.clientId)}` },
    // A first-party application (the organization's own) is granted what it asks for within its
    // allowed scopes, without a consent screen; a third-party one (`firstParty: false`) only what the
    // end user allowed it on the hosted login's consent page before — anything more makes the
    // provider's consent prompt ask (as does `prompt=consent`, for any client).
    loadExistingGrant: async (ctx) => {
      const client = ctx.oidc.client!;
      const groupId = groupOf(client);
      const accountId = ctx.oidc.session!.accountId!;
      const existingId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(client.clientId);
      const grant = (existingId ? await ctx.oidc.provider.Grant.find(existingId) : undefined)
        ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
      let requested = grantableScopes([...(ctx.oidc.requestParamScopes ?? [])]);
      if ((client as unknown as AerieClient).aerie_first_party === false) {
        const allowed = new Set(await consentedScopes(deps.db, org.id, accountId, client.clientId));
        requested = requested.filter((s) => allowed.has(s));
      }
      if (requested.length > 0) grant.addOIDCScope(requested.join(' '));
      const resourceScopes = requested.filter((s) => (TOKEN_SCOPES as readonly string[]).includes(s));
      if (groupId && resourceScopes.length > 0) grant.addResourceScope(appGroupAudience(groupId), resourceScopes.join(' '));
      await grant.save();
      return grant;
    },
    findAccount: async (ctx, sub, token) => {
      const groupId = groupOf(ctx.oidc.client ?? (token?.clientId ? await ctx.oidc.provider.Client.find(token.clientId) : undefined));
      if (!groupId) return undefined;
      const subject = await deps.signIn.subject(org.id, sub, groupId);
      if (!subject) return undefined;
      return {
        accountId: subject.id,
        claims: () => ({ sub: subject.id, email: subject.email, email_verified: subject.emailVerified, ...(subject.displayName ? { name: subject.displayName } : {}) }),
      };
    },
    extraTokenClaims: async (ctx, token) => {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      const groupId = groupOf(ctx.oidc.client ?? (await ctx.oidc.provider.Client.find(token.clientId!)));
      const subject = groupId ? await deps.signIn.subject(org.id, token.accountId, groupId) : undefined;
      // Only a sign-in the Aerie account proved carries its organizations (never an email match).
      const source = ctx.oidc.entities.AuthorizationCode ?? ctx.oidc.entities.RefreshToken;
      const byAccount = (source?.amr ?? []).includes('aerie');
      const tenantOrgs = byAccount && groupId && deps.tenantOrgs ? await deps.tenantOrgs(org.id, groupId, token.accountId) : [];
      return { permissions: JSON.stringify(subject?.permissions ?? []), tenant_orgs: tenantOrgs, ...(token.grantId ? { [GRANT_ID_CLAIM]: token.grantId } : {}) };
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, client) => {
          const groupId = groupOf(client);
          return groupId ? appGroupAudience(groupId) : undefined!;
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => {
          const groupId = groupOf(client);
          if (!groupId || resource !== appGroupAudience(groupId)) throw new errors.InvalidTarget();
          return {
            scope: TOKEN_SCOPES.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256', kid } },
          };
        },
      },
    },
    renderError,
  };

  const provider = new OidcProvider(issuer, configuration);
  // Forwarded host and scheme are set by Aerie itself from the issuer (providers.ts, asIssuer).
  provider.proxy = true;
  // A confidential client's secret is stored as a SHA-256 hash by the apps plugin; it compares. oidc-provider
  // takes client_secret_basic and client_secret_post for each other: Aerie takes only the method the
  // client registered (a secret in the form of a Basic client is refused, and the other way round).
  provider.Client.prototype.compareClientSecret = async function compare(this: { clientId: string; clientAuthMethod: string }, actual: string) {
    const sentInForm = (OidcProvider.ctx as KoaContextWithOIDC | undefined)?.oidc?.params?.client_secret !== undefined;
    if (sentInForm !== (this.clientAuthMethod === 'client_secret_post')) return false;
    return deps.applications.verifySecret(this.clientId, actual);
  };
  provider.use(afterProviderRoutes(deps, org));
  return provider;
}

export type { KoaContextWithOIDC };
