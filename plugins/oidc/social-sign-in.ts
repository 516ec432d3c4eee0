import { inject, injectable, reply, type Reply } from '../../core/index.ts';
import { endUsersRefs, type EndUserSignInService } from '../endusers/api.ts';
import { oidcErrors } from './errors.ts';
import type { HostedLogin } from './hosted-login.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import type { SdkSignIn } from './sdk-sign-in.ts';
import { recordingFailures, refused } from './sign-in-failures.ts';
import { SOCIAL_SOURCES, type SocialConnections, type SocialProvider } from './social-connections.ts';
import type { FlowRow, SocialFlows } from './social-flows.ts';

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
@injectable()
export class SocialSignIn {
  constructor(
    @inject(oidcInternalRefs.socialFlows.id) private readonly flows: SocialFlows,
    @inject(oidcInternalRefs.login.id) private readonly login: HostedLogin,
    @inject(oidcInternalRefs.socialConnections.id) private readonly connections: SocialConnections,
    @inject(endUsersRefs.signIn.id) private readonly signIn: EndUserSignInService,
    /** Ends an SDK sign-in (`sdk:{id}` flows) with the end user. */
    @inject(oidcInternalRefs.sdk.id) private readonly sdk: SdkSignIn,
  ) {}

  /**
   * Starts: 303 to the provider's authorization endpoint.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF` (`method: social:{provider}`)
   */
  async start(applicationKey: string, provider: string, cookieHeader: string | undefined): Promise<Reply> {
    const current = await this.login.inProgress(applicationKey, cookieHeader);
    if (!current) throw oidcErrors.signInNotFound();
    const url = await this.flows.open(current.app, current.group.id, provider, current.interaction.uid);
    return reply(303, undefined, { location: url, 'cache-control': 'no-store' });
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
    const sdkFlow = await this.flows.sdkFlowOf(query.state);
    const current = sdkFlow ? undefined : await this.login.inProgress(applicationKey, cookieHeader);
    if (!sdkFlow && !current) throw oidcErrors.signInNotFound();
    const { app, group } = current ?? (await this.login.application(applicationKey));
    // Not an attempt yet (nothing recorded): a state of no flow of this sign-in, or one spent or expired.
    const flow = await this.flows.take(query.state, { uid: sdkFlow ?? current!.interaction.uid, clientKey: app.clientKey, provider });
    const context = { ip, provider };
    const endUserId = await recordingFailures(this.signIn, app.orgId, { appGroupId: group.id, clientKey: app.clientKey, method: 'social', ...context },
      () => this.identify(app, group.id, applicationKey, provider, query, flow));
    if (sdkFlow) return reply(303, undefined, { location: await this.sdk.finishSocial(sdkFlow.slice(4), group.id, endUserId, context), 'cache-control': 'no-store' });
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
    const identity = await this.flows.identity(config, applicationKey, provider, query, flow);
    if (!identity.email || !identity.emailVerified) {
      throw refused(oidcErrors.socialFailed('email_unverified'), { reason: 'email_unverified', ...(identity.email ? { email: identity.email } : {}) });
    }
    const endUserId = await this.signIn.forAccount(app.orgId, appGroupId, { email: identity.email, displayName: identity.name }, SOCIAL_SOURCES[provider as SocialProvider] ?? 'OpenID');
    if (!endUserId) throw refused(oidcErrors.endUserRefused(), { reason: 'suspended', email: identity.email });
    return endUserId;
  }
}
