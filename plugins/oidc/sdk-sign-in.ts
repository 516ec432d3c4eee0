import { randomBytes, randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, requesterNetwork, type Clock, type CryptoService, type Database, type RateLimiter, type RateLimitService } from '../../core/index.ts';
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { AppGroupDto } from '../apps/api.ts';
import { endUsersRefs, type EndUserSignInService, type SignInContext, type SignInMethod } from '../endusers/api.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import type { AerieAccountSignIn } from './aerie-account.ts';
import type { Ceremony, EndUserPasskeys } from './end-user-passkeys.ts';
import { oidcErrors } from './errors.ts';
import type { HostedLogin } from './hosted-login.ts';
import type { LoginCodes } from './login-codes.ts';
import type { OrgProviders } from './providers.ts';
import { recordingFailures } from './sign-in-failures.ts';
import type { SocialFlows } from './social-flows.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import { appGroupAudience, INTERACTION_TTL_SECONDS, TOKEN_SCOPES } from './token-policy.ts';

const SDK = 'oidc.sdk_sign_ins';

/** SDK sign-ins one requester (IPv4 address, IPv6 /64) may start per 10 minutes (429 `RATE_LIMITED` beyond). */
export const SDK_STARTS_PER_IP = { points: 60, durationSeconds: 600 };

/** What an SDK sign-in starts with: the authorization request's parameters, as JSON. */
export interface SdkStart {
  redirectUri: string;
  /** Space-separated; `openid` required. */
  scope: string;
  /** PKCE S256 challenge (base64url of SHA-256 of the verifier, 43 characters). */
  codeChallenge: string;
  codeChallengeMethod: 'S256';
  nonce?: string;
}

interface SdkRow {
  id: string;
  orgId: string;
  clientKey: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  nonce: string | null;
}

/**
 * The SDK routes: the hosted login's emailed-code, passkey and Aerie-account methods as JSON for
 * single-page and native applications. A sign-in starts with the same parameters an authorization request carries
 * (registered redirect URI, PKCE S256 always, scopes) and ends with an authorization code the
 * application exchanges at the token endpoint with its verifier — so the token response, rotation,
 * introspection and every check are the provider's own. The sign-in handle is a 256-bit secret the
 * application holds (SHA-256 at rest), valid 10 minutes, finished once.
 * @see docs/api/signin.md "SDK routes"
 */
@injectable()
export class SdkSignIn {
  private readonly startsPerIp: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(oidcInternalRefs.providers.id) private readonly providers: OrgProviders,
    @inject(oidcInternalRefs.login.id) private readonly login: HostedLogin,
    @inject(oidcInternalRefs.codes.id) private readonly codes: LoginCodes,
    @inject(endUsersRefs.signIn.id) private readonly signIn: EndUserSignInService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
    @inject(oidcInternalRefs.passkeys.id) private readonly passkeys: EndUserPasskeys,
    @inject(oidcInternalRefs.aerieAccount.id) private readonly aerieAccount: AerieAccountSignIn,
    @inject(oidcInternalRefs.socialFlows.id) private readonly flows: SocialFlows,
  ) {
    this.startsPerIp = rateLimits.limiter({ name: 'oidc.sdk-starts', ...SDK_STARTS_PER_IP });
  }

  /**
   * Starts a sign-in. @returns the handle (shown once) and its lifetime in seconds
   * @throws 404 (unknown or disabled application), 400 `VALIDATION_FAILED` (redirect URI not
   *   registered exactly, no `openid`, a scope the application may not ask for, a code flow the
   *   application does not have)
   */
  async start(applicationKey: string, input: SdkStart, ip: string): Promise<{ signInId: string; expiresInSeconds: number }> {
    const { app } = await this.login.application(applicationKey);
    await this.startsPerIp.consume(requesterNetwork(ip));
    // The SDK routes mint the code themselves: only for first-party applications, which need no consent.
    if (!app.firstParty) throw oidcErrors.sdkInvalid('A third-party application signs its end users in through the hosted login, where they consent.', 'applicationKey');
    if (!app.grantTypes.includes('authorization_code')) throw oidcErrors.sdkInvalid('The application does not use the authorization code flow.', 'applicationKey');
    if (!app.redirectUris.includes(input.redirectUri)) throw oidcErrors.sdkInvalid('redirectUri is not registered for this application (exact match).', 'redirectUri');
    const scopes = input.scope.split(' ').filter(Boolean);
    const allowed = new Set([...app.allowedScopes, ...(app.grantTypes.includes('refresh_token') ? ['offline_access'] : [])]);
    if (!scopes.includes('openid') || scopes.some((s) => !allowed.has(s))) throw oidcErrors.sdkInvalid('scope must include openid and only scopes the application may ask for.', 'scope');
    const handle = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.db.knex(SDK).insert({
      id: randomUUID(), orgId: app.orgId, handleHash: this.crypto.sha256Hex(handle), clientKey: app.clientKey, redirectUri: input.redirectUri,
      scope: scopes.join(' '), codeChallenge: input.codeChallenge, nonce: input.nonce ?? null,
      expiresAt: new Date(now.getTime() + INTERACTION_TTL_SECONDS * 1000), createdAt: now,
    });
    return { signInId: handle, expiresInSeconds: INTERACTION_TTL_SECONDS };
  }

  /** Deletes sign-ins that ended or expired more than an hour ago. @returns how many */
  async purge(): Promise<number> {
    return this.db.knex(SDK).where('expiresAt', '<', new Date(this.clock.now().getTime() - 3600_000)).delete();
  }

  /**
   * Queues a code's mail for the sign-in (sent after the answer; the same answer and work for any
   * address). @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 429 `RATE_LIMITED` ({@link LoginCodes.issue})
   */
  async sendCode(applicationKey: string, signInId: string, email: string, ip: string): Promise<{ expiresInSeconds: number }> {
    const { row, group } = await this.live(applicationKey, signInId, 'emailCode');
    const emailNormalized = email.normalize('NFC').toLowerCase();
    const endUserId = (await this.signIn.candidate(row.orgId, group.id, emailNormalized)) ?? null;
    return this.codes.issue({ orgId: row.orgId, interactionUid: `sdk:${row.id}`, emailNormalized, endUserId, applicationName: group.name, ip }, this.signIn);
  }

  /**
   * Checks the code and finishes the sign-in with an authorization code for the application.
   * @param ip - the client's address, for the audit events
   * @returns `{code, redirectUri}`: exchange it at `{issuer}/oauth/token` with the PKCE verifier
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 400 `LOGIN_CODE_INVALID` / `LOGIN_CODE_EXPIRED`,
   *   429 `RATE_LIMITED` (the address's wrong codes: {@link LoginCodes.verify}); the 400s are audited
   *   (`org.end_user.sign_in_failed`), the 429 is not (nothing was checked)
   */
  async verifyCode(applicationKey: string, signInId: string, email: string, code: string, ip: string): Promise<{ code: string; redirectUri: string }> {
    const { row, group } = await this.live(applicationKey, signInId, 'emailCode');
    const emailNormalized = email.normalize('NFC').toLowerCase();
    const endUserId = await recordingFailures(this.signIn, row.orgId, { appGroupId: group.id, clientKey: row.clientKey, method: 'email_code', email: emailNormalized, ip },
      () => this.codes.verify(row.orgId, `sdk:${row.id}`, emailNormalized, code, ip));
    return this.finish(row, group.id, endUserId, 'email_code', 'otp', oidcErrors.codeExpired, { ip });
  }

  /**
   * Options for `navigator.credentials.get()` in this sign-in (discoverable credentials, no allow
   * list, user verification required), with the app group's RP ID.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`
   */
  async passkeyOptions(applicationKey: string, signInId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { row, group } = await this.live(applicationKey, signInId, 'passkey');
    return this.passkeys.signInOptions(this.ceremony(row, group));
  }

  /**
   * Verifies a passkey assertion against this sign-in's challenge (the hosted login's checks) and
   * finishes the sign-in with the passkey's end user.
   * @returns `{code, redirectUri}` as {@link verifyCode}
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 400 `PASSKEY_FAILED` (also for an end user
   *   who may not sign in to this application; audited `org.end_user.sign_in_failed`)
   */
  async passkeySignIn(applicationKey: string, signInId: string, response: AuthenticationResponseJSON, ip: string): Promise<{ code: string; redirectUri: string }> {
    const { row, group } = await this.live(applicationKey, signInId, 'passkey');
    const endUserId = await recordingFailures(this.signIn, row.orgId, { appGroupId: group.id, clientKey: row.clientKey, method: 'passkey', ip },
      () => this.passkeys.signIn(this.ceremony(row, group), response));
    return this.finish(row, group.id, endUserId, 'passkey', 'hwk', oidcErrors.passkeyFailed, { ip });
  }

  /**
   * Sign-in with an Aerie account in this SDK sign-in: connects the person's account (the checks of
   * {@link AerieAccountSignIn.connect}: method on, verified email, consent the first time) and
   * finishes the sign-in with the end user it is. A refused connect leaves the sign-in live.
   * @returns `{code, redirectUri}` as {@link verifyCode}; its tokens carry `amr` `aerie` and `tenant_orgs`
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `AERIE_ACCOUNT_LOGIN_OFF`, 403 `ACCOUNT_EMAIL_UNVERIFIED`,
   *   409 `CONSENT_REQUIRED`, 403 `PERMISSION_DENIED` (suspended end user); failed attempts are
   *   audited (`org.end_user.sign_in_failed`)
   */
  async aerieAccountSignIn(applicationKey: string, signInId: string, accountId: string, consent: boolean, ip: string): Promise<{ code: string; redirectUri: string }> {
    const { row, app, group } = await this.live(applicationKey, signInId);
    const endUserId = await recordingFailures(this.signIn, row.orgId, { appGroupId: group.id, clientKey: row.clientKey, method: 'aerie_account', ip },
      () => this.aerieAccount.connect(accountId, app, group, consent));
    return this.finish(row, group.id, endUserId, 'aerie_account', 'aerie', oidcErrors.endUserRefused, { ip });
  }

  /**
   * Social sign-in inside this SDK sign-in: answers the provider's authorization URL for the
   * application to open in a browser; the provider's callback ends at the sign-in's redirect URI
   * with `code` (and `iss`), exchanged at the token endpoint with the PKCE verifier as for every method.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF` (`method: social:{provider}`)
   */
  async socialStart(applicationKey: string, signInId: string, provider: string): Promise<{ url: string }> {
    const { row, app, group } = await this.live(applicationKey, signInId);
    return { url: await this.flows.open(app, group.id, provider, `sdk:${row.id}`) };
  }

  /**
   * Ends the SDK sign-in `id` after a social provider proved `endUserId` (the provider's callback):
   * answers the sign-in's redirect URI with `code` and `iss`. `context` (the client's IP, the
   * provider) goes into the audit events.
   * @throws 404 `SIGN_IN_NOT_FOUND` (finished or expired), 403 `PERMISSION_DENIED` (suspended end user)
   */
  async finishSocial(id: string, appGroupId: string, endUserId: string, context: SignInContext): Promise<string> {
    const row = (await this.db.knex(SDK).where({ id }).whereNull('finishedAt').where('expiresAt', '>', this.clock.now())
      .first('id', 'orgId', 'clientKey', 'redirectUri', 'scope', 'codeChallenge', 'nonce')) as SdkRow | undefined;
    if (!row) throw oidcErrors.signInNotFound();
    const { code } = await this.finish(row, appGroupId, endUserId, 'social', 'fed', oidcErrors.endUserRefused, context);
    const org = await this.orgs.findById(row.orgId);
    const found = org && (await this.providers.forSlug(org.slug));
    const back = new URL(row.redirectUri);
    back.searchParams.set('code', code);
    if (found) back.searchParams.set('iss', found.provider.issuer);
    return back.href;
  }

  /**
   * A passkey ceremony of this SDK sign-in: challenges bound to `sdk:{id}`, the app group's RP ID;
   * the origin is the login page's or the application's own (its redirect URI's), when that host is
   * the RP ID or under it — where a browser lets a page use the RP ID at all.
   */
  private ceremony(row: SdkRow, group: AppGroupDto): Ceremony {
    const rp = this.login.relyingParty(group);
    const origins = [rp.origin].flat();
    const app = new URL(row.redirectUri);
    if ((app.protocol === 'https:' || app.protocol === 'http:') && (app.hostname === rp.rpId || app.hostname.endsWith(`.${rp.rpId}`)) && !origins.includes(app.origin)) {
      origins.push(app.origin);
    }
    return { orgId: row.orgId, interactionUid: `sdk:${row.id}`, rp: { ...rp, origin: origins } };
  }

  /** Ends the sign-in once (a second finish is 404) with the proven end user; answers the authorization code. */
  private async finish(
    row: SdkRow, appGroupId: string, endUserId: string, method: SignInMethod, amr: string, refused: () => Error, context: SignInContext,
  ): Promise<{ code: string; redirectUri: string }> {
    const finished = await this.db.knex(SDK).where({ id: row.id }).whereNull('finishedAt').update({ finishedAt: this.clock.now() });
    if (finished !== 1) throw oidcErrors.signInNotFound();
    // Suspended or lost access between the proof and now: refused as the method's own failure.
    const subject = await this.signIn.signedIn(row.orgId, endUserId, appGroupId, method, row.clientKey, context);
    if (!subject) throw refused();
    return { code: await this.mintCode(row, appGroupId, subject.id, [amr]), redirectUri: row.redirectUri };
  }

  /** An authorization code of the organization's provider, as its authorization endpoint would issue it. */
  private async mintCode(row: SdkRow, appGroupId: string, endUserId: string, amr: string[]): Promise<string> {
    const org = await this.orgs.findById(row.orgId);
    const found = org && (await this.providers.forSlug(org.slug));
    if (!found) throw oidcErrors.organizationNotFound();
    const { provider } = found;
    const client = await provider.Client.find(row.clientKey);
    if (!client) throw oidcErrors.applicationNotFound();
    const scopes = row.scope.split(' ');
    const grant = new provider.Grant({ clientId: row.clientKey, accountId: endUserId });
    grant.addOIDCScope(scopes.filter((s) => s === 'openid' || s === 'offline_access' || (TOKEN_SCOPES as readonly string[]).includes(s)).join(' '));
    grant.addResourceScope(appGroupAudience(appGroupId), scopes.filter((s) => (TOKEN_SCOPES as readonly string[]).includes(s)).join(' '));
    const grantId = await grant.save();
    const authorizationCode = new provider.AuthorizationCode({
      accountId: endUserId, amr, authTime: Math.floor(this.clock.now().getTime() / 1000), client, grantId, redirectUri: row.redirectUri,
      scope: row.scope, codeChallenge: row.codeChallenge, codeChallengeMethod: 'S256', expiresWithSession: false, resource: appGroupAudience(appGroupId),
      ...(row.nonce ? { nonce: row.nonce } : {}),
    } as never);
    return authorizationCode.save();
  }

  /**
   * The live sign-in for this handle and application, with the app group offering `method` (without
   * one, the caller checks the method itself: the Aerie account's has its own error).
   */
  private async live(applicationKey: string, signInId: string, method?: 'emailCode' | 'passkey') {
    const { app, group } = await this.login.application(applicationKey);
    if (method && !(await this.login.methods(group))[method]) throw oidcErrors.methodOff(method === 'emailCode' ? 'email code' : 'passkey');
    const row = (await this.db.knex(SDK).where({ handleHash: this.crypto.sha256Hex(signInId), clientKey: app.clientKey, orgId: app.orgId })
      .whereNull('finishedAt').where('expiresAt', '>', this.clock.now()).first('id', 'orgId', 'clientKey', 'redirectUri', 'scope', 'codeChallenge', 'nonce')) as SdkRow | undefined;
    if (!row) throw oidcErrors.signInNotFound();
    return { row, app, group };
  }
}
