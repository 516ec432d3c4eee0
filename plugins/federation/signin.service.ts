import {
  coreRefs, inject, injectable, reply,
  type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type Egress, type EgressFetch, type RateLimiter, type RateLimitService, type Reply,
} from '../../core/index.ts';
import { accountsRefs, setSessionCookie, type AccountRecord, type AccountsService, type SessionsService } from '../accounts/api.ts';
import { orgsRefs, type MembershipsService, type OrganizationsService } from '../orgs/api.ts';
import type { ConnectionsService, SigninConnection } from './connections.service.ts';
import { federationErrors } from './errors.ts';
import { finishOidc, SigninRefused, startOidc, type IdpIdentity } from '../../core/index.ts';
import { federationRefs } from './refs.ts';
import { finishSaml, startSaml, type SamlSigninConfig } from './saml-signin.ts';
import { FLOW_TTL_SECONDS, SigninFlows, type SigninFlow } from './signin-flows.ts';

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
}

/**
 * Sign-in through an organization's active IdP connection (`/idp/{slug}/login` and its callbacks):
 * starts the flow (state, nonce and PKCE, or a SAML request id, kept in a flow row bound to the
 * browser's flow cookie), validates what comes back, matches an active member by verified email
 * (just-in-time membership when the connection allows it) and opens a cookie session. Every outcome
 * is on the audit chain (`org.idp_signin.succeeded` / `org.idp_signin.failed` with a reason word).
 * @see docs/api/federation.md "Signing in"
 */
@injectable()
export class SigninService {
  private readonly flows: SigninFlows;
  private readonly fetch: EgressFetch;
  private readonly startsPerIp: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.crypto.id) crypto: CryptoService,
    @inject(coreRefs.clock.id) clock: Clock,
    @inject(coreRefs.egress.id) egress: Egress,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(accountsRefs.sessions.id) private readonly sessions: SessionsService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(federationRefs.connections.id) private readonly connections: ConnectionsService,
  ) {
    this.flows = new SigninFlows(crypto, clock);
    this.fetch = egress.fetch({ timeoutMs: 10_000, maxResponseBytes: 256 * 1024 });
    this.startsPerIp = rateLimits.limiter({ name: 'federation.login-starts', ...LOGIN_STARTS_PER_IP });
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
    let location: string;
    let flow: Omit<SigninFlow, 'id' | 'createdAt'>;
    const base = { orgId: connection.orgId, connectionId: connection.id, state: null, nonce: null, codeVerifier: null, samlRequestId: null };
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
    return reply(302, undefined, { location, 'set-cookie': setCookie, 'cache-control': 'no-store' });
  }

  /**
   * A callback (`GET /idp/{slug}/callback`, `POST /idp/{slug}/saml/acs`): a 303 to the dashboard
   * with the session cookie.
   * @throws 404 `idp_not_configured`; 401 `IDP_SIGNIN_FAILED` with `reason` (recorded on the audit chain)
   */
  async finish(input: CallbackInput): Promise<Reply> {
    const connection = await this.active(input.slug);
    let flowId: string | null = null;
    try {
      const flow = await this.db.transaction((trx) => this.flows.take(trx, input.cookies[this.flowCookieName()]));
      if (typeof flow === 'string') throw new SigninRefused(flow);
      flowId = flow.id;
      if (flow.orgId !== connection.orgId) throw new SigninRefused('flow_other_organization');
      if (flow.connectionId !== connection.id || flow.protocol !== input.protocol) throw new SigninRefused('connection_changed');
      const identity = await this.verify(connection, flow, input);
      const done = await this.db.transaction(async (trx) => {
        const { account, membershipId, joined } = await this.member(connection, identity, trx);
        const session = await this.sessions.create(account.id, { userAgent: input.userAgent, ip: input.ip, csrf: true }, trx);
        await this.audit.append(trx, {
          orgId: connection.orgId, eventType: 'org.idp_signin.succeeded', actor: { type: 'account', id: account.id },
          businessData: { connectionId: connection.id, protocol: connection.protocol, flowId, accountId: account.id, membershipId, joined },
        });
        return session;
      });
      return reply(303, undefined, {
        location: this.config.dashboardUrl, 'set-cookie': setSessionCookie(this.config, done.token, done.absoluteTtlSeconds), 'cache-control': 'no-store',
      });
    } catch (err) {
      if (!(err instanceof SigninRefused)) throw err;
      await this.audit.append(this.db.knex, {
        orgId: connection.orgId, eventType: 'org.idp_signin.failed',
        businessData: { connectionId: connection.id, protocol: input.protocol, flowId, reason: err.reason },
      });
      throw federationErrors.signinFailed(err.reason);
    }
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

  /**
   * The member the identity signs in as: an account with this email, verified at Aerie too, with an
   * active membership. Without one, the connection's `allowJit` makes a person with no membership at
   * all a `Member` (creating the account when new); a suspended or revoked membership is never revived.
   */
  private async member(connection: SigninConnection, identity: IdpIdentity, trx: Parameters<AccountsService['ensureVerified']>[2]) {
    if (!identity.email) throw new SigninRefused('email_missing');
    if (!identity.emailVerified) throw new SigninRefused('email_unverified');
    let account: AccountRecord | undefined = await this.accounts.findByEmail(identity.email, trx);
    if (account && !account.emailVerifiedAt) throw new SigninRefused('account_unverified');
    const membership = account ? await this.memberships.findByAccount(connection.orgId, account.id, trx) : undefined;
    if (membership?.status === 'active') return { account: account!, membershipId: membership.id, joined: false };
    if (membership) throw new SigninRefused('membership_inactive');
    if (!connection.allowJit) throw new SigninRefused('not_a_member');
    account ??= (await this.accounts.ensureVerified(identity.email, identity.name, trx)).account;
    const joined = await this.memberships.join(connection.orgId, account.id, 'Member', trx);
    return { account, membershipId: joined.id, joined: true };
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
