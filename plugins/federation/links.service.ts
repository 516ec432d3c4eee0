import { coreRefs, inject, injectable, isUuid, notFound, type AuditService, type Database } from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { IdentityLinks } from './identity-links.ts';

/** A link as its owner sees it. @see docs/api/federation.md "Linking an Aerie account" */
export interface LinkDto {
  id: string;
  organization: { id: string; slug: string; name: string } | null;
  issuer: string;
  email: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * The signed-in person's links between their Aerie account and organizations' IdP identities:
 * list and remove (`/api/v1/users/me/idp-links`). Making one is a sign-in flow (`SigninService.startLink`).
 */
@injectable()
export class LinksService {
  private readonly links = new IdentityLinks();

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
  ) {}

  /** The account's links, newest first (an account has a handful: one per organization and IdP). */
  async list(accountId: string): Promise<LinkDto[]> {
    const rows = await this.links.forAccount(this.db.knex, accountId);
    return Promise.all(rows.map(async (r) => {
      const org = await this.orgs.findById(r.orgId);
      return {
        id: r.id, organization: org ? { id: org.id, slug: org.slug, name: org.name } : null, issuer: r.issuer, email: r.email ?? null,
        createdAt: new Date(r.createdAt).toISOString(), lastUsedAt: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
      };
    }));
  }

  /**
   * Removes one of the account's links: the IdP no longer signs in as this account. Audited
   * `org.federation.identity_unlinked` in the link's organization.
   * @throws 404 `NOT_FOUND` (no such link of this account)
   */
  async unlink(accountId: string, linkId: string): Promise<void> {
    if (!isUuid(linkId)) throw notFound('No such link.');
    await this.db.transaction(async (trx) => {
      const removed = await this.links.remove(trx, accountId, linkId);
      if (!removed) throw notFound('No such link.');
      await this.audit.append(trx, {
        orgId: removed.orgId, eventType: 'org.federation.identity_unlinked', actor: { type: 'account', id: accountId },
        businessData: { linkId, accountId, issuer: removed.issuer },
      });
    });
  }
}
