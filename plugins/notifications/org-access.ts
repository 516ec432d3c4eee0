import { inject, injectable } from '../../core/index.ts';
import { orgsRefs, type MembershipsService, type OrganizationsService, type OrgRecord } from '../orgs/api.ts';
import { notificationsErrors } from './errors.ts';

/** The organization-level roles that send announcements and see every attachment. */
const ANNOUNCER_ROLES: readonly string[] = ['Owner', 'Admin'];

/** Who may act for an organization on the session routes (`/api/v1/notifications/org/…`). */
@injectable()
export class OrgAccess {
  constructor(
    @inject(orgsRefs.organizations.id) private readonly organizations: OrganizationsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
  ) {}

  /**
   * The organization `slug` when `accountId` is its active Owner or Admin.
   * @throws 404 `NOT_FOUND` (unknown organization, not an active member), 403 `PERMISSION_DENIED` (a Member)
   */
  async announcerOf(slug: string, accountId: string): Promise<OrgRecord> {
    const org = await this.organizations.findBySlug(slug);
    const membership = org && (await this.memberships.findByAccount(org.id, accountId));
    if (!org || membership?.status !== 'active') throw notificationsErrors.orgNotFound();
    if (!this.isAnnouncerRole(membership.role)) throw notificationsErrors.ownerOrAdminOnly();
    return org;
  }

  /** true when `accountId` is an active Owner or Admin of organization `orgId`. */
  async isAnnouncer(orgId: string, accountId: string): Promise<boolean> {
    const membership = await this.memberships.findByAccount(orgId, accountId);
    return membership?.status === 'active' && this.isAnnouncerRole(membership.role);
  }

  private isAnnouncerRole(role: string): boolean {
    return ANNOUNCER_ROLES.includes(role);
  }
}
