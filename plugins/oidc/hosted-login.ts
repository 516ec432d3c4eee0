import Cookies from 'cookies';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { appsRefs, type AppGroupDto, type AppGroupsService, type ApplicationDto, type ApplicationsService } from '../apps/api.ts';
import { endUsersRefs, type EndUserSignInService } from '../endusers/api.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { coreRefs, inject, injectable, type AerieConfig, type CryptoService } from '../../core/index.ts';
import type { Ceremony, EndUserPasskeys } from './end-user-passkeys.ts';
import type { AerieAccountSignIn } from './aerie-account.ts';
import type { EndUserConsents } from './end-user-consents.ts';
import { appGroupAudience, grantableScopes, TOKEN_SCOPES } from './token-policy.ts';
import { oidcErrors } from './errors.ts';
import type { LoginCodes } from './login-codes.ts';
import { recordingFailures } from './sign-in-failures.ts';
import { COOKIE_NAMES, cookieKeys } from './provider-factory.ts';
import type { OrgProvider, OrgProviders } from './providers.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import type { SocialConnections } from './social-connections.ts';

/** A sign-in in progress on the hosted login page. */
export interface SignInInProgress {
  app: ApplicationDto & { orgId: string };
  group: AppGroupDto;
  org: OrgProvider;
  interaction: InstanceType<OrgProvider['provider']['Interaction']>;
}

/** The methods the hosted login offers for an app group. @see docs/api/signin.md "Login methods" */
export interface LoginMethods {
  emailCode: boolean;
  passkey: boolean;
  social: string[];
  aerieAccount: boolean;
}

/**
 * The hosted login's side of a sign-in: finds the provider interaction this browser is in (the
 * provider's signed interaction cookie, path-scoped to `/login/{applicationKey}`), runs a method
 * (email code in this version) and finishes the interaction with the proven end user, answering
 * where the browser goes next (the provider's resume URL).
 * @see docs/api/signin.md "Hosted login"
 */
@injectable()
export class HostedLogin {
  /** Aerie's own WebAuthn RP ID (`webauthn.rpId`) and the login page's origin. */
  private readonly webauthn: { rpId: string; loginOrigin: string };

  constructor(
    @inject(oidcInternalRefs.providers.id) private readonly providers: OrgProviders,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(appsRefs.applications.id) private readonly applications: ApplicationsService,
    @inject(appsRefs.appGroups.id) private readonly appGroups: AppGroupsService,
    @inject(endUsersRefs.signIn.id) private readonly signIn: EndUserSignInService,
    @inject(oidcInternalRefs.codes.id) private readonly codes: LoginCodes,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(oidcInternalRefs.passkeys.id) private readonly passkeys: EndUserPasskeys,
    @inject(oidcInternalRefs.aerieAccount.id) private readonly aerieAccount: AerieAccountSignIn,
    @inject(oidcInternalRefs.consents.id) private readonly consents: EndUserConsents,
    /** The social providers an app group offers (its connections, in button order). */
    @inject(oidcInternalRefs.socialConnections.id) private readonly socialConnections: SocialConnections,
    @inject(coreRefs.config.id) config: AerieConfig,
  ) {
    this.webauthn = { rpId: config.webauthn.rpId, loginOrigin: new URL(config.loginUrl).origin };
  }

  /** The application and its group, for pages and login-methods. @throws 404 for an unknown key */
  async application(applicationKey: string): Promise<{ app: ApplicationDto & { orgId: string }; group: AppGroupDto }> {
    const app = await this.applications.findByClientKey(applicationKey);
    const group = app && (await this.appGroups.get(app.orgId, app.appGroupId));
    if (!app || !group || app.status !== 'active') throw oidcErrors.applicationNotFound();
    return { app, group };
  }

  /**
   * The app group's methods: the email code when `magicLinkEnabled`, passkeys when `passkeyEnabled`,
   * sign-in with an Aerie account when `aerieAccountEnabled` or while the group is listed on the
   * marketplace (`social` left empty: see {@link loginMethods}).
   */
  async methods(group: AppGroupDto): Promise<LoginMethods> {
    return {
      emailCode: group.branding.magicLinkEnabled, passkey: group.branding.passkeyEnabled, social: [], aerieAccount: await this.aerieAccount.enabled(group),
    };
  }

  /** The organization's display name (the consent page names who does not make a third-party application). */
  async organizationName(orgId: string): Promise<string> {
    return (await this.orgs.findById(orgId))?.name ?? '';
  }

  /**
   * The scopes a sign-in in progress asks the end user to allow, when the provider's prompt is
   * consent (a third-party application, or `prompt=consent`); `undefined` otherwise.
   */
  consentRequest(current: SignInInProgress): { scopes: string[] } | undefined {
    if (current.interaction.prompt.name !== 'consent' || !current.interaction.session?.accountId) return undefined;
    return { scopes: grantableScopes(String(current.interaction.params.scope ?? '').split(' ')) };
  }

  /**
   * The end user's answer on the consent page. Allow: the requested scopes are added to the sign-in's
   * grant and recorded as allowed for this end user and client (the next sign-in asks nothing, or
   * only for new scopes); Deny: the sign-in ends with `access_denied` at the client's redirect URI.
   * Either answer is audited (`org.end_user.consent_granted` / `org.end_user.consent_denied`).
   * @returns where the browser goes next (the provider's resume URL)
   * @throws 404 `SIGN_IN_NOT_FOUND` when no consent is asked in this browser
   */
  async consent(applicationKey: string, cookieHeader: string | undefined, allow: boolean): Promise<{ redirectTo: string }> {
    const current = await this.inProgress(applicationKey, cookieHeader);
    const asked = current && this.consentRequest(current);
    if (!current || !asked) throw oidcErrors.signInNotFound();
    const { interaction, app, org } = current;
    const ttl = Math.max(1, interaction.exp - Math.floor(Date.now() / 1000));
    const accountId = interaction.session!.accountId;
    const subject = { orgId: app.orgId, appGroupId: app.appGroupId, clientKey: app.clientKey, endUserId: accountId };
    if (!allow) {
      await this.consents.deny(subject, asked.scopes);
      interaction.result = { error: 'access_denied', error_description: 'The end user did not allow the application access.' };
      await interaction.save(ttl);
      return { redirectTo: interaction.returnTo };
    }
    const { Grant } = org.provider;
    const grant = (interaction.grantId ? await Grant.find(interaction.grantId) : undefined) ?? new Grant({ accountId, clientId: app.clientKey });
    if (asked.scopes.length > 0) grant.addOIDCScope(asked.scopes.join(' '));
    const resourceScopes = asked.scopes.filter((s) => (TOKEN_SCOPES as readonly string[]).includes(s));
    if (resourceScopes.length > 0) grant.addResourceScope(appGroupAudience(app.appGroupId), resourceScopes.join(' '));
    const missingClaims = (interaction.prompt.details as { missingOIDCClaims?: string[] }).missingOIDCClaims;
    if (missingClaims?.length) grant.addOIDCClaims(missingClaims);
    const grantId = await grant.save();
    await this.consents.allow(subject, asked.scopes);
    interaction.result = { ...interaction.lastSubmission, consent: { grantId } };
    await interaction.save(ttl);
    return { redirectTo: interaction.returnTo };
  }

  /** What the hosted login offers for an app group: {@link methods} with the social providers it is connected to. */
  async loginMethods(orgId: string, group: AppGroupDto): Promise<LoginMethods> {
    return { ...(await this.methods(group)), social: await this.socialConnections.offered(orgId, group) };
  }

  /**
   * Sign-in with an Aerie account on the hosted login: connects the signed-in account (consent the
   * first time) and finishes this sign-in with the end user it is.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `AERIE_ACCOUNT_LOGIN_OFF`, 403 `ACCOUNT_EMAIL_UNVERIFIED`,
   *   409 `CONSENT_REQUIRED`, 403 `PERMISSION_DENIED` (suspended end user); failed attempts are
   *   audited (`org.end_user.sign_in_failed`)
   */
  async aerieAccountSignIn(applicationKey: string, cookieHeader: string | undefined, accountId: string, consent: boolean, ip: string): Promise<{ redirectTo: string }> {
    const current = await this.inProgress(applicationKey, cookieHeader);
    if (!current) throw oidcErrors.signInNotFound();
    const { app } = current;
    const endUserId = await recordingFailures(this.signIn, app.orgId, { appGroupId: app.appGroupId, clientKey: app.clientKey, method: 'aerie_account', ip },
      () => this.aerieAccount.connect(accountId, app, current.group, consent));
    const subject = await this.signIn.signedIn(app.orgId, endUserId, app.appGroupId, 'aerie_account', app.clientKey, { ip });
    if (!subject) throw oidcErrors.endUserRefused();
    return this.finish(current, subject.id, 'aerie');
  }

  /**
   * The sign-in this browser has in progress for the application.
   * @returns `undefined` when there is none (no or a forged cookie, expired, another application's)
   */
  async inProgress(applicationKey: string, cookieHeader: string | undefined): Promise<SignInInProgress | undefined> {
    const { app, group } = await this.application(applicationKey);
    const org = await this.orgs.findById(app.orgId);
    const provider = org && (await this.providers.forSlug(org.slug));
    if (!provider) return undefined;
    const uid = signedCookie(cookieHeader, COOKIE_NAMES.interaction, cookieKeys(this.crypto, app.orgId));
    if (!uid) return undefined;
    const interaction = await provider.provider.Interaction.find(uid);
    if (!interaction || interaction.params.client_id !== app.clientKey) return undefined;
    return { app, group, org: provider, interaction };
  }

  /**
   * Queues a code's mail to `email` for this sign-in (sent after the answer; only when an end user
   * with access to the group has the address): the answer, and the work behind it, are the same
   * either way. @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 429 `RATE_LIMITED` ({@link LoginCodes.issue})
   */
  async sendCode(applicationKey: string, cookieHeader: string | undefined, email: string, ip: string): Promise<{ expiresInSeconds: number }> {
    const current = await this.require(applicationKey, cookieHeader, 'emailCode');
    const emailNormalized = email.normalize('NFC').toLowerCase();
    const endUserId = (await this.signIn.candidate(current.app.orgId, current.app.appGroupId, emailNormalized)) ?? null;
    return this.codes.issue({
      orgId: current.app.orgId, interactionUid: current.interaction.uid, emailNormalized, endUserId, applicationName: current.group.name, ip,
    }, this.signIn);
  }

  /**
   * Checks the code and finishes the sign-in with the end user.
   * @param ip - the client's address, for the audit events
   * @returns where the browser goes next (the provider resumes the authorization request there)
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 400 `LOGIN_CODE_INVALID` / `LOGIN_CODE_EXPIRED`,
   *   429 `RATE_LIMITED` (the address's wrong codes: {@link LoginCodes.verify}); the 400s are audited
   *   (`org.end_user.sign_in_failed`), the 429 is not (nothing was checked)
   */
  async verifyCode(applicationKey: string, cookieHeader: string | undefined, email: string, code: string, ip: string): Promise<{ redirectTo: string }> {
    const current = await this.require(applicationKey, cookieHeader, 'emailCode');
    const { app, interaction } = current;
    const emailNormalized = email.normalize('NFC').toLowerCase();
    const endUserId = await recordingFailures(this.signIn, app.orgId, { appGroupId: app.appGroupId, clientKey: app.clientKey, method: 'email_code', email: emailNormalized, ip },
      () => this.codes.verify(app.orgId, interaction.uid, emailNormalized, code, ip));
    const subject = await this.signIn.signedIn(app.orgId, endUserId, app.appGroupId, 'email_code', app.clientKey, { ip });
    // Suspended or lost access between the code and now: as if the code were wrong, nothing finishes.
    if (!subject) throw oidcErrors.codeExpired();
    return this.finish(current, subject.id, 'otp');
  }

  /** Options for a passkey sign-in in this sign-in. @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF` */
  async passkeyOptions(applicationKey: string, cookieHeader: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const current = await this.require(applicationKey, cookieHeader, 'passkey');
    return this.passkeys.signInOptions(this.ceremony(current));
  }

  /**
   * Verifies a passkey assertion and finishes the sign-in with its end user.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 400 `PASSKEY_FAILED` (also for an end
   *   user who may not sign in to this application: suspended, no access; audited `org.end_user.sign_in_failed`)
   */
  async passkeySignIn(applicationKey: string, cookieHeader: string | undefined, response: AuthenticationResponseJSON, ip: string): Promise<{ redirectTo: string }> {
    const current = await this.require(applicationKey, cookieHeader, 'passkey');
    const { app } = current;
    const endUserId = await recordingFailures(this.signIn, app.orgId, { appGroupId: app.appGroupId, clientKey: app.clientKey, method: 'passkey', ip },
      () => this.passkeys.signIn(this.ceremony(current), response));
    const subject = await this.signIn.signedIn(app.orgId, endUserId, app.appGroupId, 'passkey', app.clientKey, { ip });
    if (!subject) throw oidcErrors.passkeyFailed();
    return this.finish(current, subject.id, 'hwk');
  }

  /**
   * Options to add a passkey, for the end user this sign-in has just proven by emailed code.
   * @throws 404 `SIGN_IN_NOT_FOUND`, 403 `LOGIN_METHOD_OFF`, 403 `SIGN_IN_NOT_PROVEN`, 409 `PASSKEY_LIMIT`
   */
  async passkeyRegistrationOptions(applicationKey: string, cookieHeader: string | undefined): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const current = await this.require(applicationKey, cookieHeader, 'passkey');
    const subject = await this.proven(current);
    return this.passkeys.registrationOptions(this.ceremony(current), { id: subject.id, email: subject.email, displayName: subject.displayName });
  }

  /**
   * Stores the new passkey of the end user this sign-in has proven.
   * @returns where the browser goes next (the sign-in was already finished by the code)
   * @throws as {@link passkeyRegistrationOptions}, and 400 `PASSKEY_FAILED`
   */
  async passkeyRegister(applicationKey: string, cookieHeader: string | undefined, response: RegistrationResponseJSON): Promise<{ redirectTo: string }> {
    const current = await this.require(applicationKey, cookieHeader, 'passkey');
    const subject = await this.proven(current);
    await this.passkeys.register(this.ceremony(current), subject.id, response);
    return { redirectTo: current.interaction.returnTo };
  }

  /** The WebAuthn relying party of an app group's hosted login. */
  relyingParty(group: AppGroupDto): Ceremony['rp'] {
    return { rpId: group.passkeyRpId ?? this.webauthn.rpId, rpName: group.name, origin: this.webauthn.loginOrigin };
  }

  private ceremony(current: SignInInProgress): Ceremony {
    return { orgId: current.app.orgId, interactionUid: current.interaction.uid, rp: this.relyingParty(current.group) };
  }

  /** The end user an emailed code proved in this sign-in. @throws 403 `SIGN_IN_NOT_PROVEN` */
  private async proven(current: SignInInProgress) {
    const login = current.interaction.result?.login as { accountId?: string; amr?: string[] } | undefined;
    const subject = login?.accountId && login.amr?.includes('otp')
      ? await this.signIn.subject(current.app.orgId, login.accountId, current.app.appGroupId) : undefined;
    if (!subject) throw oidcErrors.notProven();
    return subject;
  }

  /**
   * Finishes the provider interaction with the proven end user (`amr`: RFC 8176 method reference);
   * answers the provider's resume URL.
   */
  async finish(current: SignInInProgress, endUserId: string, amr: string): Promise<{ redirectTo: string }> {
    const { interaction } = current;
    interaction.result = { login: { accountId: endUserId, amr: [amr] } };
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
    return { redirectTo: interaction.returnTo };
  }

  private async require(applicationKey: string, cookieHeader: string | undefined, method: 'emailCode' | 'passkey'): Promise<SignInInProgress> {
    const current = await this.inProgress(applicationKey, cookieHeader);
    if (!current) throw oidcErrors.signInNotFound();
    if (!(await this.methods(current.group))[method]) throw oidcErrors.methodOff(method === 'emailCode' ? 'email code' : 'passkey');
    return current;
  }
}

/** A cookie's value when its keygrip signature (`{name}.sig`, as koa and oidc-provider set it) verifies. */
function signedCookie(header: string | undefined, name: string, keys: string[]): string | undefined {
  if (!header) return undefined;
  // Reading only: a response that takes (and drops) the cleared `.sig` cookie a bad signature causes.
  const req = { headers: { cookie: header } } as unknown as IncomingMessage;
  const res = { getHeader: () => undefined, setHeader: () => undefined } as unknown as ServerResponse;
  return new Cookies(req, res, { keys, secure: false }).get(name, { signed: true }) ?? undefined;
}
