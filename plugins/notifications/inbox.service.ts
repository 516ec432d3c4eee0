import { coreRefs, inject, injectable, type Clock, type Database } from '../../core/index.ts';
import { notificationsErrors } from './errors.ts';
import { ATTACHMENTS_TABLE, NOTIFICATIONS_TABLE, toAttachmentDto, type AttachmentDto, type AttachmentRow, type NotificationRow } from './tables.ts';

/** How many notifications the inbox answers, newest first. */
export const INBOX_SIZE = 20;

/** A notification as its recipient sees it. */
export interface NotificationDto {
  id: string;
  orgId: string | null;
  category: string;
  title: string;
  body: string;
  link: string | null;
  announcementId: string | null;
  attachments: AttachmentDto[];
  createdAt: string;
  readAt: string | null;
}

/**
 * An account's own notifications: every query is narrowed to the caller's account and to rows not
 * deleted, so another account's notification is not found (404), never touched.
 * @see docs/api/notifications.md
 */
@injectable()
export class InboxService {
  constructor(
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.db.id) private readonly db: Database,
  ) {}

  /** The newest {@link INBOX_SIZE} notifications of `accountId`, with their announcements' attachments. */
  async list(accountId: string): Promise<NotificationDto[]> {
    const rows = await this.mine(accountId).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(INBOX_SIZE).select('*');
    const announcementIds = [...new Set(rows.flatMap((r) => (r.announcementId ? [r.announcementId] : [])))];
    const attachments = announcementIds.length === 0 ? [] : await this.db.knex<AttachmentRow>(ATTACHMENTS_TABLE).whereIn('announcementId', announcementIds).orderBy('createdAt').select('*');
    return rows.map((row) => ({
      id: row.id, orgId: row.orgId, category: row.category, title: row.title, body: row.body, link: row.link, announcementId: row.announcementId,
      attachments: attachments.filter((a) => a.announcementId === row.announcementId && a.orgId === row.orgId).map(toAttachmentDto),
      createdAt: new Date(row.createdAt).toISOString(), readAt: row.readAt && new Date(row.readAt).toISOString(),
    }));
  }

  async unreadCount(accountId: string): Promise<number> {
    const [{ count }] = await this.mine(accountId).whereNull('readAt').count({ count: '*' });
    return Number(count);
  }

  /** @throws 404 `NOT_FOUND` unless `id` is one of the caller's notifications (not deleted). */
  async markRead(accountId: string, id: string): Promise<void> {
    const found = await this.mine(accountId).where({ id }).update({ readAt: this.db.knex.raw('coalesce(read_at, ?)', [this.clock.now()]) } as never);
    if (!found) throw notificationsErrors.notificationNotFound();
  }

  /** @returns how many were unread. */
  async markAllRead(accountId: string): Promise<number> {
    return this.mine(accountId).whereNull('readAt').update({ readAt: this.clock.now() } as never);
  }

  /**
   * Soft-deletes the caller's notifications `ids`, all or none (deleting one again changes nothing).
   * @throws 404 `NOT_FOUND` when one of them is not the caller's (nothing is deleted)
   */
  async delete(accountId: string, ids: readonly string[]): Promise<void> {
    const unique = [...new Set(ids)];
    await this.db.transaction(async (trx) => {
      const updated = await trx<NotificationRow>(NOTIFICATIONS_TABLE).where({ accountId }).whereIn('id', unique)
        .update({ deletedAt: trx.raw('coalesce(deleted_at, ?)', [this.clock.now()]) } as never);
      if (updated !== unique.length) throw notificationsErrors.notificationNotFound();
    });
  }

  private mine(accountId: string) {
    return this.db.knex<NotificationRow>(NOTIFICATIONS_TABLE).where({ accountId }).whereNull('deletedAt');
  }
}
