import { isUuid } from '../../core/index.ts';
import type { AccountsService } from '../accounts/api.ts';
import type { MembershipsService, OrganizationsService } from '../orgs/api.ts';

/** Organization (public DTO). @see docs/api/public-v1.md */
export interface PublicOrgDto {
  id: string;
  name: string;
  slug: string;
  ready: boolean;
}

/** An operator of an organization. @see docs/api/public-v1.md */
export interface Operator {
  email: string;
  role: 'Owner' | 'Admin';
}

/** An account id no account has (the nil UUID). */
const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/**
 * Organization look-ups of the public API, through the accounts and orgs services.
 * @see docs/api/public-v1.md
 */
export class OrganizationDirectory {
  constructor(
    private readonly accounts: AccountsService,
    private readonly organizations: OrganizationsService,
    private readonly memberships: MembershipsService,
  ) {}

  /**
   * Organizations the account with this email owns (active `Owner`), oldest first, each with `ready`.
   * @returns `[]` both when no account has the email and when it owns nothing — with the same work
   *   (the organization query runs for an id no account has), so timing does not tell them apart.
   */
  async ownedBy(email: string): Promise<PublicOrgDto[]> {
    const account = await this.accounts.findByEmail(email.trim());
    // Owners only, in the query: an account that is a member elsewhere does no extra work either.
    const orgs = await this.organizations.listForAccount(account?.id ?? NO_ACCOUNT, 'Owner');
    return orgs.map(toPublic);
  }

  /**
   * The organization owned by `email` whose name equals `orgName` (trimmed, case-insensitive); the
   * oldest when several match.
   */
  async match(email: string, orgName: string): Promise<PublicOrgDto | undefined> {
    const wanted = orgName.trim().toLowerCase();
    return (await this.ownedBy(email)).find((o) => o.name.trim().toLowerCase() === wanted);
  }

  /** The organization with this id, or `undefined` (ids that are not UUIDs are simply unknown). */
  async byId(orgId: string): Promise<PublicOrgDto | undefined> {
    if (!isUuid(orgId)) return undefined;
    const org = await this.organizations.findById(orgId);
    return org ? toPublic(await this.organizations.toDto(org)) : undefined;
  }

  /**
   * The organization's active `Owner` and `Admin` members with their emails: owners first, then by
   * membership age. Members, and suspended or revoked operators, are not listed.
   */
  async operators(orgId: string): Promise<Operator[]> {
    const active = await this.memberships.list(orgId, ['active']);
    const operators = active.filter((m) => m.role === 'Owner' || m.role === 'Admin');
    operators.sort((a, b) => (a.role === b.role ? 0 : a.role === 'Owner' ? -1 : 1));
    const accounts = await Promise.all(operators.map((m) => this.accounts.findById(m.accountId)));
    return operators.flatMap((m, i) => (accounts[i] ? [{ email: accounts[i]!.email, role: m.role as Operator['role'] }] : []));
  }
}

function toPublic(o: PublicOrgDto): PublicOrgDto {
  return { id: o.id, name: o.name, slug: o.slug, ready: o.ready };
}
