import { coreRefs, inject, injectable, type Clock, type CryptoService, type Database } from '../../core/index.ts';
import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { rbacRefs, type RolesService } from '../rbac/api.ts';
import { effectiveStatus, type InvitationRow } from './invitation-record.ts';

/**
 * What the invitation page shows to whoever holds the token (the mail's recipient): the
 * organization and role names, the invited address, the state and expiry, and whether the address
 * already has an account (which decides between "sign in and accept" and "create the account and
 * accept"). Shape: `{ organizationName, roleName, email, status, expiresAt (ISO 8601), hasAccount }`.
 */
export interface InvitationPreview {
  organizationName: string;
  roleName: string;
  email: string;
  status: 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired';
  expiresAt: string;
  hasAccount: boolean;
}

/** Reads an invitation by its token for the invitation page; changes nothing. @see docs/api/members.md "The invitation page" */
@injectable()
export class InvitationPreviewService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(orgsRefs.organizations.id) private readonly organizations: OrganizationsService,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
  ) {}

  /** @returns the preview, or undefined when no invitation has this token. */
  async preview(token: string): Promise<InvitationPreview | undefined> {
    const row = (await this.db.knex('members.invitations').where({ tokenHash: this.crypto.sha256Hex(token) }).first()) as InvitationRow | undefined;
    if (!row) return undefined;
    const [org, role, account] = await Promise.all([
      this.organizations.findById(row.orgId), row.roleId ? this.roles.find(row.orgId, row.roleId) : undefined, this.accounts.findByEmail(row.email),
    ]);
    return {
      organizationName: org?.name ?? '', roleName: role?.name ?? row.roleKey ?? 'Member', email: row.email,
      status: effectiveStatus(row, this.clock.now()), expiresAt: new Date(row.expiresAt).toISOString(), hasAccount: !!account,
    };
  }
}
