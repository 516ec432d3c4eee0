import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { APP_GROUPS_TABLE, type AppGroupRow } from './app-groups.service.ts';
import { appsErrors } from './errors.ts';
import type { MarketplaceService as MarketplaceServiceApi, ListingDto } from './service-interfaces.ts';

const INSTALLATIONS = 'apps.installations';

/**
 * `apps.marketplace`: listing app groups (a platform administrator's moderation) and installing a
 * listed app group into another organization. Every change is audited (the listing on the group's
 * organization's chain, an installation on the installer's).
 * @see docs/api/apps.md "Marketplace listing and installations"
 */
@injectable()
export class MarketplaceService implements MarketplaceServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  async setListing(groupKey: string, listed: boolean, byAccountId: string): Promise<ListingDto> {
    return this.db.transaction(async (trx) => {
      const group = (await trx<AppGroupRow & { listedAt: Date | null }>(APP_GROUPS_TABLE).where({ publicKey: groupKey }).forUpdate().first()) as
        (AppGroupRow & { listedAt: Date | null }) | undefined;
      if (!group) throw appsErrors.appGroupNotFound();
      const listedAt = listed ? (group.listedAt ?? this.clock.now()) : null;
      if ((group.listedAt !== null) !== listed) {
        await trx(APP_GROUPS_TABLE).where({ id: group.id }).update({ listedAt });
        await this.audit.append(trx, {
          orgId: group.orgId, eventType: listed ? 'org.app_group.listed' : 'org.app_group.delisted',
          businessData: { appGroupId: group.id, groupKey, byPlatformAdmin: byAccountId },
        });
      }
      return { groupKey, listed, listedAt: listedAt ? new Date(listedAt).toISOString() : null };
    });
  }

  async install(orgId: string, groupKey: string, byAccountId: string | null): Promise<{ appGroupId: string; installedAt: string; created: boolean }> {
    return this.db.transaction(async (trx) => {
      const group = (await trx(APP_GROUPS_TABLE).where({ publicKey: groupKey }).first('id', 'orgId', 'listedAt')) as
        { id: string; orgId: string; listedAt: Date | null } | undefined;
      if (!group || group.listedAt === null) throw appsErrors.notOnMarketplace();
      if (group.orgId === orgId) throw appsErrors.ownApp();
      const inserted = await trx(INSTALLATIONS).insert({ orgId, appGroupId: group.id, installedBy: byAccountId, installedAt: this.clock.now() })
        .onConflict(['orgId', 'appGroupId']).ignore().returning('installedAt');
      if (inserted.length > 0) {
        await this.audit.append(trx, { orgId, eventType: 'org.integration.enabled', businessData: { appGroupId: group.id, groupKey, providerOrgId: group.orgId } });
      }
      const row = (await trx(INSTALLATIONS).where({ orgId, appGroupId: group.id }).first('installedAt')) as { installedAt: Date };
      return { appGroupId: group.id, installedAt: new Date(row.installedAt).toISOString(), created: inserted.length > 0 };
    });
  }

  async installedAmong(appGroupId: string, orgIds: readonly string[]): Promise<string[]> {
    if (orgIds.length === 0) return [];
    const rows = (await this.db.knex(INSTALLATIONS).where({ appGroupId }).whereIn('orgId', [...orgIds]).select('orgId')) as Array<{ orgId: string }>;
    return rows.map((r) => r.orgId);
  }

  async isListed(appGroupId: string): Promise<boolean> {
    const row = (await this.db.knex(APP_GROUPS_TABLE).where({ id: appGroupId }).whereNotNull('listedAt').first('id')) as { id: string } | undefined;
    return row !== undefined;
  }
}
