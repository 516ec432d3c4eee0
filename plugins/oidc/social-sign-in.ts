import { randomUUID } from 'node:crypto';
import type { EndUserSignInService, SignInContext } from '../endusers/api.ts';
import { finishOidc, reply, SigninRefused, startOidc, type Clock, type CryptoService, type Database, type EgressFetch, type Reply } from '../../core/index.ts';
import { oidcErrors } from './errors.ts';
import type { HostedLogin } from './hosted-login.ts';
import { recordingFailures, refused } from './sign-in-failures.ts';
import { SOCIAL_SOURCES, type SocialConnections, type SocialProvider } from './social-connections.ts';

const FLOWS = 'oidc.social_flows';
/** How long a browser may take at the social provider, in seconds. */
const FLOW_TTL_SECONDS = 600;

interface FlowRow {
  id: string; orgId: string; interactionUid: string; clientKey: string; provider: string; nonce: string; codeVerifier: string; expiresAt: Date; consumedAt: Date | null;
}

/**
 * Social sign-in on the hosted login: `GET /login/{applicationKey}/social/{provider}` sends the
 * browser to the app group's upstream OpenID provider (authorization code with PKCE S256, `state`,
 * `nonce`); the callback checks that `state` names a flow of this browser's sign-in (the provider
 * interaction its cookie names), single use and at most 10 minutes old, exchanges the code and
 * verifies the ID token (signature against the provider's JWKS, `iss`, `aud`, `nonce`, `exp`). A
 * verified email becomes the organization's end user with that email (created with the provider as
 * `source` when new, given access to the group), and the sign-in finishes with `amr: ["fed"]`.
 * @see docs/api/signin.md "Social sign-in"
 */
export class SocialSignIn {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
    private readonly login: HostedLogin,
    private readonly connections: SocialConnections,
    private readonly signIn: EndUserSignInService,
    private readonly fetch: EgressFetch,
    private readonly loginUrl: string,
    /** Ends an SDK sign-in (`sdk:{id}` flows) with the end user: answers where the browser goes (the app's redirect URI with `code` and `iss`). */
    private readonly finishSdk: (sdkSignInId: string, appGroupId: string, endUserId: string, context: SignInContext) => Promise<string>,
  ) {}

  /**
   * Starts: 303 to the provider's authorization endpoint.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF` (`method: social:{provider}`)
   */
  async start(applicationKey: string, provider: string, cookieHeader: string | undefined): Promise<Reply> {
    const current = await this.login.inProgress(applicationKey, cookieHeader);
    if (!current) throw oidcErrors.signInNotFound();
    const url = await this.open(current.app, current.group.id, provider, current.interaction.uid);
    return reply(303, undefined, { location: url, 'cache-control': 'no-store' });
  }

  /**
   * Starts the method inside an SDK sign-in: answers the provider's authorization URL, which the
   * application opens in a browser; the callback ends at the application's redirect URI with `code`.
   * @throws 403 `LOGIN_METHOD_OFF` (`method: social:{provider}`)
   */
  async startSdk(app: { orgId: string; clientKey: string }, appGroupId: string, sdkSignInId: string, provider: string): Promise<string> {
    return this.open(app, appGroupId, provider, `sdk:${sdkSignInId}`);
  }

  /** Stores a flow bound to `interactionUid` (a provider interaction, or `sdk:{id}`); answers the provider's URL. */
  private async open(app: { orgId: string; clientKey: string }, appGroupId: string, provider: string, interactionUid: string): Promise<string> {
    const config = await this.connections.config(app.orgId, appGroupId, provider);
    if (!config) throw oidcErrors.methodOff(`social:${provider}`);
    const { url, state, nonce, codeVerifier } = await startOidc(config, this.fetch, this.callbackUrl(app.clientKey, provider));
    const now = this.clock.now();
    await this.db.knex(FLOWS).where('expiresAt', '<', new Date(now.getTime() - 86_400_000)).delete(); // keep the table small
    await this.db.knex(FLOWS).insert({
      id: randomUUID(), orgId: app.orgId, stateHash: this.crypto.sha256Hex(state), interactionUid, clientKey: app.clientKey,
      provider, nonce, codeVerifier, expiresAt: new Date(now.getTime() + FLOW_TTL_SECONDS * 1000),
    });
    return url;
  }

  /**
   * The provider's callback: 303 to where the provider resumes the authorization request.
   * @param ip - the client's address, for the audit events
   * @throws 404 `SIGN_IN_NOT_FOUND`, 401 `SOCIAL_SIGN_IN_FAILED` (`reason`: `flow_unknown`,
   *   `flow_used`, `flow_expired`, `email_unverified`, or the relying party's reason such as
   *   `id_token_signature_invalid`, `nonce_mismatch`, `idp_error`), 403 `PERMISSION_DENIED` (suspended end user).
   *   Once the flow is spent, a failure is audited (`org.end_user.sign_in_failed`).
   */
  async finish(applicationKey: string, provider: string, cookieHeader: string | undefined, query: Record<string, string>, ip: string): Promise<Reply> {
    const sdkFlow = await this.sdkFlowOf(query.state);
    const current = sdkFlow ? undefined : await this.login.inProgress(applicationKey, cookieHeader);
    if (!sdkFlow && !current) throw oidcErrors.signInNotFound();
    const { app, group } = current ?? (await this.login.application(applicationKey));
    // Not an attempt yet (nothing recorded): a state of no flow of this sign-in, or one spent or expired.
    const flow = await this.take(query.state, { uid: sdkFlow ?? current!.interaction.uid, clientKey: app.clientKey, provider });
    const context = { ip, provider };
    const endUserId = await recordingFailures(this.signIn, app.orgId, { appGroupId: group.id, clientKey: app.clientKey, method: 'social', ...context },
      () => this.identify(app, group.id, applicationKey, provider, query, flow));
    if (sdkFlow) return reply(303, undefined, { location: await this.finishSdk(sdkFlow.slice(4), group.id, endUserId, context), 'cache-control': 'no-store' });
    const subject = await this.signIn.signedIn(app.orgId, endUserId, group.id, 'social', app.clientKey, context);
    if (!subject) throw oidcErrors.endUserRefused();
    const { redirectTo } = await this.login.finish(current!, subject.id, 'fed');
    return reply(303, undefined, { location: redirectTo, 'cache-control': 'no-store' });
  }

  /**
   * The end user the provider's answer proves: the code exchanged, the ID token verified, its
   * verified email matched or made an end user.
   * @throws 403 `LOGIN_METHOD_OFF`; marked failed attempts ({@link refused}): 401
   *   `SOCIAL_SIGN_IN_FAILED` (`provider_error`, `email_unverified`), 403 `PERMISSION_DENIED` (`suspended`)
   */
  private async identify(
    app: { orgId: string }, appGroupId: string, applicationKey: string, provider: string, query: Record<string, string>, flow: FlowRow,
  ): Promise<string> {
    const config = await this.connections.config(app.orgId, appGroupId, provider);
    if (!config) throw oidcErrors.methodOff(`social:${provider}`);
    const callback = new URL(this.callbackUrl(applicationKey, provider));
    callback.search = new URLSearchParams(query).toString();
    let identity;
    try {
      identity = await finishOidc(config, this.fetch, callback, { state: query.state!, nonce: flow.nonce, codeVerifier: flow.codeVerifier });
    } catch (err) {
      if (err instanceof SigninRefused) throw refused(oidcErrors.socialFailed(err.reason), { reason: 'provider_error' });
      throw err;
    }
    if (!identity.email || !identity.emailVerified) {
      throw refused(oidcErrors.socialFailed('email_unverified'), { reason: 'email_unverified', ...(identity.email ? { email: identity.email } : {}) });
    }
    const endUserId = await this.signIn.forAccount(app.orgId, appGroupId, { email: identity.email, displayName: identity.name }, SOCIAL_SOURCES[provider as SocialProvider] ?? 'OpenID');
    if (!endUserId) throw refused(oidcErrors.endUserRefused(), { reason: 'suspended', email: identity.email });
    return endUserId;
  }

  /** The `sdk:{id}` a live flow of `state` belongs to, when it is an SDK sign-in's (read, not consumed). */
  private async sdkFlowOf(state: string | undefined): Promise<string | undefined> {
    if (!state) return undefined;
    const row = (await this.db.knex(FLOWS).where({ stateHash: this.crypto.sha256Hex(state) }).first('interactionUid')) as Pick<FlowRow, 'interactionUid'> | undefined;
    return row?.interactionUid.startsWith('sdk:') ? row.interactionUid : undefined;
  }

  /** Deletes flows past their time (the sweep). */
  async purge(): Promise<void> {
    await this.db.knex(FLOWS).where('expiresAt', '<', this.clock.now()).delete();
  }

  private callbackUrl(applicationKey: string, provider: string): string {
    return `${this.loginUrl}/login/${encodeURIComponent(applicationKey)}/social/${provider}/callback`;
  }

  /** Consumes the flow `state` names, if it is this browser's sign-in's. @throws 401 `SOCIAL_SIGN_IN_FAILED` */
  private async take(state: string | undefined, expected: { uid: string; clientKey: string; provider: string }): Promise<FlowRow> {
    if (!state) throw oidcErrors.socialFailed('flow_unknown');
    return this.db.transaction(async (trx) => {
      const row = (await trx(FLOWS).where({ stateHash: this.crypto.sha256Hex(state) }).forUpdate().first()) as FlowRow | undefined;
      if (!row || row.interactionUid !== expected.uid || row.clientKey !== expected.clientKey || row.provider !== expected.provider) throw oidcErrors.socialFailed('flow_unknown');
      if (row.consumedAt) throw oidcErrors.socialFailed('flow_used');
      const now = this.clock.now();
      if (new Date(row.expiresAt) <= now) throw oidcErrors.socialFailed('flow_expired');
      await trx(FLOWS).where({ id: row.id }).update({ consumedAt: now });
      return row;
    });
  }
}
