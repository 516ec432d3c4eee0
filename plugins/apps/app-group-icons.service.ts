import type { Readable } from 'node:stream';
import {
  coreRefs, inject, injectable, type AerieConfig, type AuditService, type BlobStore, type Clock, type Database, type EventBus, isUuid,
} from '../../core/index.ts';
import { appsErrors } from './errors.ts';
import { APP_GROUPS_TABLE, iconBlobKey, toDto, type AppGroupRow } from './app-groups.service.ts';
import { ICON_MAX_BYTES, readIcon } from './icon-image.ts';
import type { AppGroupDto } from './service-interfaces.ts';

/**
 * App-group icons: uploaded bytes are checked and cleaned ({@link readIcon}), stored in `core.blob`
 * with the detected type, and the group's `iconUrl` becomes Aerie's public icon address
 * (`GET /api/public/app-groups/{groupKey}/icon`, with `?v=` from the content hash). Audited in the
 * transaction that changes `iconUrl`. Ids of other organizations look absent (404).
 * @see docs/api/apps.md "Icon"
 */
@injectable()
export class AppGroupIconsService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.events.id) private readonly events: EventBus,
  ) {}

  /**
   * Stores `bytes` as the group's icon and points `iconUrl` at it.
   * @throws 404 `NOT_FOUND` for an unknown or foreign group; 400 `ICON_TYPE_UNSUPPORTED`, 413 `PAYLOAD_TOO_LARGE` (nothing stored)
   */
  async upload(orgId: string, groupId: string, bytes: Buffer): Promise<AppGroupDto> {
    const group = await this.group(orgId, groupId);
    const icon = await readIcon(bytes);
    if (!icon) throw appsErrors.iconTypeUnsupported();
    // Cleaning re-serialises an SVG, which can (rarely) make it longer than what was read.
    if (icon.bytes.length > ICON_MAX_BYTES) throw appsErrors.iconTooLarge(ICON_MAX_BYTES);
    const key = iconBlobKey(orgId, groupId);
    const stored = await this.blob.put(key, icon.bytes, { maxBytes: ICON_MAX_BYTES, contentType: icon.contentType });
    const iconUrl = `${this.config.baseUrl}/api/public/app-groups/${group.publicKey}/icon?v=${stored.sha256.slice(0, 16)}`;
    const row = await this.db.transaction(async (trx) => {
      const [updated] = await trx<AppGroupRow>(APP_GROUPS_TABLE).where({ orgId, id: groupId }).update({ iconUrl, updatedAt: this.clock.now() } as never).returning('*');
      if (!updated) {
        await this.blob.delete(key);
        throw appsErrors.appGroupNotFound();
      }
      await this.audit.append(trx, {
        orgId, eventType: 'org.app_group.icon_uploaded',
        businessData: { appGroupId: groupId, publicKey: group.publicKey, contentType: stored.contentType, size: stored.size, sha256: stored.sha256, iconUrl },
      });
      return updated;
    });
    this.events.emit({ type: 'org.app_group.updated', orgId, payload: { orgId, appGroupId: groupId } });
    return toDto(row);
  }

  /**
   * Deletes the group's uploaded icon (if any) and clears `iconUrl`, in one transaction.
   * @throws 404 `NOT_FOUND` for an unknown or foreign group
   */
  async remove(orgId: string, groupId: string): Promise<AppGroupDto> {
    const group = await this.group(orgId, groupId);
    const row = await this.db.transaction(async (trx) => {
      const [updated] = await trx<AppGroupRow>(APP_GROUPS_TABLE).where({ orgId, id: groupId }).update({ iconUrl: null, updatedAt: this.clock.now() } as never).returning('*');
      if (!updated) throw appsErrors.appGroupNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.icon_deleted', businessData: { appGroupId: groupId, publicKey: group.publicKey, previousIconUrl: group.iconUrl } });
      // Last, so a failure here rolls the change back.
      await this.blob.delete(iconBlobKey(orgId, groupId));
      return updated;
    });
    this.events.emit({ type: 'org.app_group.updated', orgId, payload: { orgId, appGroupId: groupId } });
    return toDto(row);
  }

  /** The uploaded icon of the group with this public key, or `undefined`. */
  async read(publicKey: string): Promise<{ contentType: string; size: number; body: Readable } | undefined> {
    const group = await this.db.knex<AppGroupRow>(APP_GROUPS_TABLE).where({ publicKey }).first('id', 'orgId');
    if (!group) return undefined;
    const icon = await this.blob.get(iconBlobKey(group.orgId, group.id));
    return icon && { contentType: icon.contentType, size: icon.size, body: icon.body };
  }

  private async group(orgId: string, groupId: string): Promise<AppGroupRow> {
    const row = isUuid(groupId) ? await this.db.knex<AppGroupRow>(APP_GROUPS_TABLE).where({ orgId, id: groupId }).first() : undefined;
    if (!row) throw appsErrors.appGroupNotFound();
    return row;
  }
}
