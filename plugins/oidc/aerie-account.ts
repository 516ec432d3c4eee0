import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { appsRefs, type AppGroupDto, type ApplicationDto, type MarketplaceService } from '../apps/api.ts';
import { endUsersRefs, type EndUserSignInService } from '../endusers/api.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { oidcErrors } from './errors.ts';
import { refused } from './sign-in-failures.ts';

const CONSENTS = 'oidc.account_consents';

/** What signing in with an Aerie account shares with the application. */
export const SHARED_WITH_APPLICATION = ['name', 'email'] as const;

/** `GET /api/v1/aerie-account/apps/{applicationKey}`. @see docs/api/signin.md "Sign-in with an Aerie account" */
export interface AerieAccountPreview {
  application: { key: string; name: string; appGroup: string; organization: string };
  /** What would be shared: name and email only. */
  shares: readonly string[];
  /** true until the person has consented for this app group. */
  consentRequired: boolean;
  /** Whether the app group offers the method. */
  enabled: boolean;
  /** Whether the account's email is verified (only verified accounts may use the method). */
  emailVerified: boolean;
}

/**
 * Sign-in with an Aerie account: a person signed in to Aerie (cookie session) becomes the end user
 * with their email inside the application's organization, after consenting once per app group to
 * share name and email. Only verified emails; nothing else of the account (no account id, no
 * dashboard permission, no other organization's data) reaches the application.
 * @see docs/api/signin.md "Sign-in with an Aerie account"
 */
@injectable()
export class AerieAccountSignIn {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(endUsersRefs.signIn.id) private readonly signIn: EndUserSignInService,
    @inject(appsRefs.marketplace.id) private readonly marketplace: MarketplaceService,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
  ) {}

  /**
   * `tenant_orgs` of a token from a sign-in with an Aerie account: the organizations where the account
   * that connected as this end user is an active member and that installed the app group. Read on
   * every token (a membership or installation change shows in the next one).
   */
  async tenantOrgs(orgId: string, appGroupId: string, endUserId: string): Promise<Array<{ slug: string; name: string }>> {
    const link = (await this.db.knex(CONSENTS).where({ orgId, appGroupId, endUserId }).first('accountId')) as { accountId: string } | undefined;
    if (!link) return [];
    const memberships = await this.orgs.listForAccount(link.accountId);
    const installed = new Set(await this.marketplace.installedAmong(appGroupId, memberships.map((m) => m.id)));
    return memberships.filter((m) => installed.has(m.id)).map((m) => ({ slug: m.slug, name: m.name }));
  }

  /**
   * Whether the app group offers the method: switched on (`branding.aerieAccountEnabled`), or the
   * group is listed on the marketplace — a listed group always offers it, whatever the switch says.
   * @see spec 01 "Sign-in with an account of the service"
   */
  async enabled(group: AppGroupDto): Promise<boolean> {
    return group.branding.aerieAccountEnabled || (await this.marketplace.isListed(group.id));
  }

  /** What the method would do for this account and application. */
  async preview(accountId: string, app: ApplicationDto & { orgId: string }, group: AppGroupDto): Promise<AerieAccountPreview> {
    const account = await this.accounts.findById(accountId);
    const org = await this.orgs.findById(app.orgId);
    const consent = await this.db.knex(CONSENTS).where({ orgId: app.orgId, appGroupId: group.id, accountId }).first('endUserId');
    return {
      application: { key: app.clientKey, name: app.name, appGroup: group.name, organization: org?.name ?? '' },
      shares: SHARED_WITH_APPLICATION, consentRequired: !consent, enabled: await this.enabled(group), emailVerified: !!account?.emailVerifiedAt,
    };
  }

  /**
   * Connects the account to the application's organization: checks the method is on ({@link enabled}) and the email
   * verified, records consent the first time, and finds or creates the end user.
   * @returns the end user's id
   * @throws 403 `AERIE_ACCOUNT_LOGIN_OFF`, 403 `ACCOUNT_EMAIL_UNVERIFIED`, 409 `CONSENT_REQUIRED`,
   *   403 `PERMISSION_DENIED` for a suspended end user; the last two marked as failed sign-in
   *   attempts ({@link refused}: `email_unverified`, `suspended`)
   */
  async connect(accountId: string, app: ApplicationDto & { orgId: string }, group: AppGroupDto, consent: boolean): Promise<string> {
    if (!(await this.enabled(group))) throw oidcErrors.aerieAccountOff();
    const account = await this.accounts.findById(accountId);
    if (!account) throw oidcErrors.emailUnverified();
    if (!account.emailVerifiedAt) throw refused(oidcErrors.emailUnverified(), { reason: 'email_unverified', email: account.email });
    const known = (await this.db.knex(CONSENTS).where({ orgId: app.orgId, appGroupId: group.id, accountId }).first('endUserId')) as { endUserId: string } | undefined;
    if (!known && !consent) throw oidcErrors.consentRequired();
    const endUserId = await this.signIn.forAccount(app.orgId, group.id, { email: account.email, displayName: account.displayName ?? null });
    if (!endUserId) throw refused(oidcErrors.endUserRefused(), { reason: 'suspended', email: account.email });
    await this.db.transaction(async (trx) => {
      await trx(CONSENTS).insert({ orgId: app.orgId, appGroupId: group.id, accountId, endUserId, consentedAt: this.clock.now() })
        .onConflict(['orgId', 'appGroupId', 'accountId']).merge(['endUserId']);
      // The first connect is the person's consent to share their name and email: on the chain, as a consent page's Allow is.
      if (!known) {
        await this.audit.append(trx, {
          orgId: app.orgId, appGroupId: group.id, actor: { type: 'account', id: accountId }, eventType: 'org.end_user.consent_granted',
          businessData: { endUserId, appGroupId: group.id, clientKey: app.clientKey, scopes: [...SHARED_WITH_APPLICATION], added: [...SHARED_WITH_APPLICATION], via: 'aerie_account' },
        });
      }
    });
    return endUserId;
  }
}
