import { randomUUID } from 'node:crypto';
import {
  coreRefs, inject, injectable, type AuditService, type BlobStore, type Clock, type Database, type UploadedFile,
} from '../../core/index.ts';
import { notificationsErrors } from './errors.ts';
import { notificationsInternalRefs } from './internal-refs.ts';
import type { OrgAccess } from './org-access.ts';
import { ATTACHMENTS_TABLE, NOTIFICATIONS_TABLE, toAttachmentDto, type AttachmentDto, type AttachmentRow } from './tables.ts';

/** Largest attachment: 10 MB (10 × 1024 × 1024 bytes). @see docs/api/notifications.md */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** How long a download URL works. */
export const DOWNLOAD_URL_SECONDS = 60;

/**
 * Announcement attachments: uploaded before the send (streamed into `core.blob`, at most
 * {@link ATTACHMENT_MAX_BYTES}), downloaded through short-lived `core.blob` URLs by the
 * announcement's recipients and the organization's Owner and Admins. Everyone else gets 404.
 * @see docs/api/notifications.md "Attachments"
 */
@injectable()
export class AttachmentsService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(notificationsInternalRefs.orgAccess.id) private readonly access: OrgAccess,
  ) {}

  /**
   * Stores the uploaded file as an unsent attachment of the organization `slug`; audited.
   * @throws 404/403 from {@link OrgAccess.announcerOf}; 413 `PAYLOAD_TOO_LARGE` past the limit (nothing stored)
   */
  async upload(slug: string, accountId: string, file: UploadedFile): Promise<AttachmentDto> {
    const org = await this.access.announcerOf(slug, accountId);
    const id = randomUUID();
    const blobKey = `org/${org.id}/notification-attachments/${id}`;
    const stored = await this.blob.put(blobKey, file.stream, { maxBytes: ATTACHMENT_MAX_BYTES, contentType: file.contentType });
    const fileName = file.fileName.slice(0, 255);
    try {
      const row = await this.db.transaction(async (trx) => {
        const [inserted] = await trx<AttachmentRow>(ATTACHMENTS_TABLE).insert({
          id, orgId: org.id, uploadedBy: accountId, blobKey, fileName, contentType: stored.contentType, sizeBytes: stored.size, sha256: stored.sha256,
          announcementId: null, createdAt: this.clock.now(),
        } as never).returning('*');
        await this.audit.append(trx, {
          orgId: org.id, eventType: 'org.notification.attachment_uploaded',
          businessData: { attachmentId: id, fileName, contentType: stored.contentType, sizeBytes: stored.size, sha256: stored.sha256 },
        });
        return inserted;
      });
      return toAttachmentDto(row);
    } catch (err) {
      await this.blob.delete(blobKey);
      throw err;
    }
  }

  /**
   * A short-lived download URL of attachment `id` for `accountId`: a recipient of the announcement it
   * was sent with, or an active Owner or Admin of its organization.
   * @throws 404 `NOT_FOUND` for anyone else, an unknown id or another organization's
   */
  async downloadUrl(id: string, accountId: string): Promise<{ url: string; fileName: string; expiresInSeconds: number }> {
    const row = await this.db.knex<AttachmentRow>(ATTACHMENTS_TABLE).where({ id }).first();
    if (!row || !(await this.mayDownload(row, accountId))) throw notificationsErrors.attachmentNotFound();
    const url = await this.blob.presignGet(row.blobKey, { expiresInSeconds: DOWNLOAD_URL_SECONDS, fileName: row.fileName, disposition: 'attachment' });
    return { url, fileName: row.fileName, expiresInSeconds: DOWNLOAD_URL_SECONDS };
  }

  private async mayDownload(row: AttachmentRow, accountId: string): Promise<boolean> {
    const recipient = row.announcementId
      && (await this.db.knex(NOTIFICATIONS_TABLE).where({ announcementId: row.announcementId, accountId, orgId: row.orgId }).first('id'));
    return Boolean(recipient) || this.access.isAnnouncer(row.orgId, accountId);
  }
}
