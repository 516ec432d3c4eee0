import {
  coreRefs, finishOidc, inject, injectable, permissionDenied, reply, SigninRefused, startOidc,
  type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type Egress, type EgressFetch, type RateLimiter, type RateLimitService, type Reply, type IdpIdentity,
} from '../../core/index.ts';
import type { Knex } from 'knex';
import { accountsRefs, setSessionCookie, type AccountsService, type SessionsService } from '../accounts/api.ts';
import { orgsRefs, type MembershipsService, type OrganizationsService } from '../orgs/api.ts';
import type { ConnectionsService, SigninConnection } from './connections.service.ts';
import { federationErrors } from './errors.ts';
import { federationRefs } from './refs.ts';
import { refusalPage, wantsPage } from './refusal-page.ts';
import { finishSaml, startSaml, type SamlSigninConfig } from './saml-signin.ts';
import { FLOW_TTL_SECONDS, SigninFlows, type SigninFlow } from './signin-flows.ts';
import { IdentityLinks } from './identity-links.ts';
import { SigninDenied, SigninPolicy, type SigninDecision } from './signin-policy.ts';

/** Sign-ins started per client IP address: each writes a flow row, so a flood is cut off. */
export const LOGIN_STARTS_PER_IP = { points: 60, durationSeconds: 600 };

/** What a browser sent to a callback: the query (OpenID) or the form (SAML), and its flow cookie. */
export interface CallbackInput {
  slug: string;
  protocol: 'oidc' | 'saml';
  /** OpenID: the callback's query string (without `?`). */
  query?: string;
  /** SAML: the `SAMLResponse` form field. */
  samlResponse?: string;
  cookies: Record<string, string>;
  userAgent?: string;
  ip: string;
  /** The request's `Accept`: a browser (`text/html`) gets a page on refusal, other clients JSON. */
  accept?: string | string[];
}

/**
 * Sign-in through an organization's active IdP connection (`/idp/{slug}/login` and its callbacks):
 * starts the flow (state, nonce and PKCE, or a SAML request id, kept in a flow row bound to the
 * browser's flow cookie), validates what comes back, decides whom it signs in by the rules of
 * {@link SigninPolicy} (a tenant's IdP vouches only inside its tenant) and opens an **organization
 * session** for that organization: a cookie session that reaches its routes only. A flow started by
 * {@link startLink} links the IdP identity to the account that started it instead. Every outcome is
 * on the audit chain: `org.idp_signin.succeeded`, `org.idp_signin.failed` (the IdP's answer failed a
 * check), `org.federation.sign_in_refused` (Aerie's rules refused the person), each with a reason word.
 * @see docs/api/federation.md "Signing in", "Organization sessions", "Linking an Aerie account"
 */
@injectable()
export class SigninService {
  private readonly flows: SigninFlows;
  private readonly fetch: EgressFetch;
  private readonly startsPerIp: RateLimiter;
  private readonly links = new IdentityLinks();
  private readonly policy: SigninPolicy;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.crypto.id) crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.egress.id) egress: Egress,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
    @inject(accountsRefs.accounts.id) accounts: AccountsService,
    @inject(accountsRefs.sessions.id) private readonly sessions: SessionsService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(federationRefs.connections.id) private readonly connections: ConnectionsService,
  ) {
    this.flows = new SigninFlows(crypto, clock);
    this.fetch = egress.fetch({ timeoutMs: 10_000, maxResponseBytes: 256 * 1024 });
    this.startsPerIp = rateLimits.limiter({ name: 'federation.login-starts', ...LOGIN_STARTS_PER_IP });
    this.policy = new SigninPolicy(accounts, this.memberships, this.links);
  }

  /** The flow cookie's name: `__Host-` prefixed (and `Secure`) when the base URL is https. */
  flowCookieName(): string {
    return this.secure() ? '__Host-aerie_idp_flow' : 'aerie_idp_flow';
  }

  /**
   * `GET /idp/{slug}/login`: a 302 to the IdP with the flow cookie set.
   * @throws 404 `idp_not_configured` (unknown organization or no active connection); 429
   *   `RATE_LIMITED` past {@link LOGIN_STARTS_PER_IP} from one address
   */
  async start(slug: string, ip: string): Promise<Reply> {
    const connection = await this.active(slug);
    await this.startsPerIp.consume(ip);
    const { location, setCookie } = await this.begin(slug, connection, null);
    return reply(302, undefined, { location, 'set-cookie': setCookie, 'cache-control': 'no-store' });
  }

  /**
   * `POST /api/v1/users/me/idp-links` (the person's own cookie session, sealed): starts a flow that
   * links the identity the IdP signs in to `accountId`. Answers **201** `{ location }` (send the
   * browser there) with the flow cookie set.
   * @throws 404 `idp_not_configured`; 403 `PERMISSION_DENIED` (not an active member of the
   *   organization, or a platform administrator); 429 `RATE_LIMITED`
   */
  async startLink(slug: string, accountId: string, platformAdmin: boolean, ip: string): Promise<Reply> {
    const connection = await this.linkable(slug, accountId, platformAdmin);
    await this.startsPerIp.consume(ip);
    const { location, setCookie } = await this.begin(slug, connection, accountId);
    return reply(201, { location, expiresInSeconds: FLOW_TTL_SECONDS }, { 'set-cookie': setCookie, 'cache-control': 'no-store' });
  }

  /**
   * The connection a link flow would use, when the account may link to it (the route's guard runs
   * this before asking for the seal).
   * @throws 404 `idp_not_configured`; 403 `PERMISSION_DENIED` (`reason`: `not_a_member`, `platform_administrator`)
   */
  async linkable(slug: string, accountId: string, platformAdmin: boolean): Promise<SigninConnection> {
    const connection = await this.active(slug);
    const membership = await this.memberships.findByAccount(connection.orgId, accountId);
    if (membership?.status !== 'active') throw permissionDenied(undefined, 'Only an active member of the organization can link its identity provider.', { reason: 'not_a_member' });
    if (platformAdmin) throw permissionDenied(undefined, 'A platform administrator never signs in through an organization\'s identity provider.', { reason: 'platform_administrator' });
    return connection;
  }

  private async begin(slug: string, connection: SigninConnection, linkAccountId: string | null): Promise<{ location: string; setCookie: string }> {
    let location: string;
    let flow: Omit<SigninFlow, 'id' | 'createdAt'>;
    const base = { orgId: connection.orgId, connectionId: connection.id, state: null, nonce: null, codeVerifier: null, samlRequestId: null, linkAccountId };
    if (connection.protocol === 'oidc') {
      const started = await startOidc(connection.oidc, this.fetch, this.endpoint(slug, 'callback'));
      location = started.url;
      flow = { ...base, protocol: 'oidc', state: started.state, nonce: started.nonce, codeVerifier: started.codeVerifier };
    } else {
      const started = await startSaml(this.samlConfig(slug, connection.saml));
      location = started.url;
      flow = { ...base, protocol: 'saml', samlRequestId: started.requestId };
    }
    const cookie = await this.flows.open(this.db.knex, flow);
    // The SAML answer is a cross-site POST: its cookie must be SameSite=None (which needs Secure).
    const sameSite = connection.protocol === 'saml' && this.secure() ? 'None' : 'Lax';
    const setCookie = `${this.flowCookieName()}=${cookie}; Path=/; Max-Age=${FLOW_TTL_SECONDS}; HttpOnly; SameSite=${sameSite}${this.secure() ? '; Secure' : ''}`;
    return { location, setCookie };
  }

  /**
   * A callback (`GET /idp/{slug}/callback`, `POST /idp/{slug}/saml/acs`): a 303 to the dashboard
   * with the organization session's cookie, the session's CSRF token in the fragment
   * (`{dashboard_url}#csrf_token=…`).
   * @throws 404 `idp_not_configured`; 401 `IDP_SIGNIN_FAILED` with `reason` (recorded on the audit
   *   chain) — answered as a page saying what to do when the browser asks for HTML
   */
  async finish(input: CallbackInput): Promise<Reply> {
    const connection = await this.active(input.slug);
    let flowId: string | null = null;
    let linking = false;
    try {
      const flow = await this.db.transaction((trx) => this.flows.take(trx, input.cookies[this.flowCookieName()]));
      if (typeof flow === 'string') throw new SigninRefused(flow);
      flowId = flow.id;
      linking = flow.linkAccountId !== null;
      if (flow.orgId !== connection.orgId) throw new SigninRefused('flow_other_organization');
      if (flow.connectionId !== connection.id || flow.protocol !== input.protocol) throw new SigninRefused('connection_changed');
      const identity = await this.verify(connection, flow, input);
      const issuer = connection.protocol === 'oidc' ? connection.oidc.issuer : connection.saml.entityId;
      const done = await this.db.transaction(async (trx) => {
        const now = this.clock.now();
        const decision = flow.linkAccountId
          ? await this.policy.link(connection, issuer, identity, flow.linkAccountId, trx, now)
          : await this.policy.decide(connection, issuer, identity, trx, now);
        const session = await this.sessions.create(decision.account.id, { userAgent: input.userAgent, ip: input.ip, csrf: true, orgId: connection.orgId }, trx);
        await this.recordSuccess(trx, connection, flowId!, decision, issuer, linking);
        return session;
      });
      const location = new URL(this.config.dashboardUrl);
      location.hash = new URLSearchParams({ csrf_token: done.csrfToken! }).toString();
      return reply(303, undefined, {
        location: location.toString(), 'set-cookie': setSessionCookie(this.config, done.token, done.absoluteTtlSeconds), 'cache-control': 'no-store',
      });
    } catch (err) {
      if (!(err instanceof SigninRefused)) throw err;
      const denied = err instanceof SigninDenied;
      await this.audit.append(this.db.knex, {
        orgId: connection.orgId, eventType: denied ? 'org.federation.sign_in_refused' : 'org.idp_signin.failed',
        businessData: { connectionId: connection.id, protocol: input.protocol, flowId, reason: err.reason, ...(denied ? { link: linking } : {}) },
      });
      if (wantsPage(input.accept)) return refusalPage(401, err.reason, this.endpoint(input.slug, 'login'));
      throw federationErrors.signinFailed(err.reason);
    }
  }

  /** `org.idp_signin.succeeded`, and `org.federation.identity_linked` for a link flow. */
  private async recordSuccess(trx: Knex.Transaction, connection: SigninConnection, flowId: string, d: SigninDecision, issuer: string, linking: boolean): Promise<void> {
    await this.audit.append(trx, {
      orgId: connection.orgId, eventType: 'org.idp_signin.succeeded', actor: { type: 'account', id: d.account.id },
      businessData: {
        connectionId: connection.id, protocol: connection.protocol, flowId, accountId: d.account.id, membershipId: d.membershipId, joined: d.joined,
        via: d.via, linkId: d.linkId ?? null,
      },
    });
    if (!linking) return;
    await this.audit.append(trx, {
      orgId: connection.orgId, eventType: 'org.federation.identity_linked', actor: { type: 'account', id: d.account.id },
      businessData: { linkId: d.linkId!, accountId: d.account.id, membershipId: d.membershipId, connectionId: connection.id, issuer, replacedLinkId: d.replacedLinkId ?? null },
    });
  }

  private async verify(connection: SigninConnection, flow: SigninFlow, input: CallbackInput): Promise<IdpIdentity> {
    if (connection.protocol === 'oidc') {
      const url = new URL(this.endpoint(input.slug, 'callback'));
      url.search = input.query ?? '';
      return finishOidc(connection.oidc, this.fetch, url, { state: flow.state!, nonce: flow.nonce!, codeVerifier: flow.codeVerifier! });
    }
    if (!input.samlResponse) throw new SigninRefused('saml_invalid');
    return finishSaml(this.samlConfig(input.slug, connection.saml), input.samlResponse, flow.samlRequestId!);
  }

  private async active(slug: string): Promise<SigninConnection> {
    const org = await this.orgs.findBySlug(slug);
    const connection = org && org.slug === slug ? await this.connections.signinConfig(org.id) : null;
    if (!connection) throw federationErrors.notConfigured();
    return connection;
  }

  private samlConfig(slug: string, saml: Extract<SigninConnection, { protocol: 'saml' }>['saml']): SamlSigninConfig {
    return { ...saml, spEntityId: this.endpoint(slug, 'saml'), acsUrl: this.endpoint(slug, 'saml/acs') };
  }

  /** `{base_url}/idp/{slug}/{path}`. */
  private endpoint(slug: string, path: string): string {
    return `${this.config.baseUrl.replace(/\/+$/, '')}/idp/${encodeURIComponent(slug)}/${path}`;
  }

  private secure(): boolean {
    return new URL(this.config.baseUrl).protocol === 'https:';
  }
}
