import { inject, injectable, isUuid, permissionDenied, unauthorized } from '../../core/index.ts';
import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { appsRefs, type AppGroupDto, type AppGroupsService } from '../apps/api.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { verifyEndUserAccessToken } from './access-tokens.ts';
import { oidcErrors } from './errors.ts';
import type { ProviderDeps } from './provider-factory.ts';
import { oidcInternalRefs } from './internal-refs.ts';

/** An account-owner's organization as the public API shows it. */
export interface OwnedOrg {
  id: string;
  name: string;
  slug: string;
  ready: boolean;
}

/** `POST /api/public/v1/orgs/owner-status`. @see docs/api/public-v1.md "Owner status" */
export interface OwnerStatus {
  state: 'no_owner_account' | 'owner_account_exists';
  email: string;
  orgs: OwnedOrg[];
}

/** An account id no account has (the nil UUID): the owned-organizations query runs the same for none. */
const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/**
 * The two doors joined by email: an end user signed in to a partner's application (their access
 * token, `Authorization: Bearer`) and the Aerie account with the same verified email. The acting
 * person always comes from the token, never from a request body.
 * @see docs/api/public-v1.md "Owner status", "Create an app group for an owner"
 */
@injectable()
export class OwnerGate {
  constructor(
    @inject(oidcInternalRefs.providerContext.id) private readonly deps: Pick<ProviderDeps, 'db' | 'clock' | 'signingKeys' | 'applications' | 'signIn'>,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(appsRefs.appGroups.id) private readonly appGroups: AppGroupsService,
  ) {}

  /**
   * The end user of the key's organization that `bearer` (an end-user access token) proves, by email.
   * The address must be one Aerie itself proved (an emailed code, an invite link, a sign-in with an
   * Aerie account): an address only the organization's social connection vouched for speaks for no
   * Aerie account.
   * @throws 401 `UNAUTHORIZED` for a missing, invalid or expired token, another organization's, or an
   *   end user who may no longer sign in or whose email Aerie has not proven
   */
  async person(keyOrgId: string, authorization: string | undefined): Promise<{ email: string }> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    const org = await this.orgs.findById(keyOrgId);
    const live = token && org ? await verifyEndUserAccessToken(this.deps, org, token) : undefined;
    if (!live) throw unauthorized('An end user\'s access token of this organization is required in Authorization: Bearer.');
    if (!live.subject.emailProven) throw oidcErrors.emailNotProven();
    return { email: live.subject.email };
  }

  /** The Aerie account (one Aerie verified itself, never an organization's federated one) with this email. */
  private async aerieAccount(email: string) {
    const account = await this.accounts.findByEmail(email);
    return account?.emailVerifiedAt && !account.federatedOrgId ? account : undefined;
  }

  /** Whether an Aerie account has the person's email, and the organizations it owns. */
  async status(keyOrgId: string, authorization: string | undefined): Promise<OwnerStatus> {
    const { email } = await this.person(keyOrgId, authorization);
    const account = await this.aerieAccount(email);
    const owned = await this.orgs.listForAccount(account?.id ?? NO_ACCOUNT, 'Owner');
    return {
      state: account ? 'owner_account_exists' : 'no_owner_account', email,
      orgs: owned.map((o) => ({ id: o.id, name: o.name, slug: o.slug, ready: o.ready })),
    };
  }

  /**
   * Creates an app group in `orgId` for the person, as the dashboard would (first application Web /
   * Development, audit, owner notification), when the key is a platform partner's and the person's
   * Aerie account owns `orgId`.
   * @throws 401 (token), 403 `PERMISSION_DENIED` (not a partner's key; the person does not own the organization)
   */
  async createAppGroup(keyOrgId: string, authorization: string | undefined, input: { orgId: string; name: string; description?: string | null; iconUrl?: string | null; brandColor?: string | null }): Promise<AppGroupDto & { orgId: string }> {
    const { email } = await this.person(keyOrgId, authorization);
    const partner = await this.orgs.findById(keyOrgId);
    if (!partner?.platformPartner) throw permissionDenied(undefined, 'Only a platform partner\'s API key may create app groups for owners.');
    const account = await this.aerieAccount(email);
    const owned = await this.orgs.listForAccount(account?.id ?? NO_ACCOUNT, 'Owner');
    if (!account || !isUuid(input.orgId) || !owned.some((o) => o.id === input.orgId)) throw permissionDenied('org.app_group.create', 'The signed-in person does not own this organization.');
    const { application: _first, ...group } = await this.appGroups.create(input.orgId, account.id, {
      name: input.name, description: input.description ?? null, iconUrl: input.iconUrl ?? null, brandColor: input.brandColor ?? null,
    });
    return { ...group, orgId: input.orgId };
  }
}
