/** The plugin's tables (schema `notifications`) and their rows (camelCase through the knex mappers). */
export const NOTIFICATIONS_TABLE = 'notifications.notifications';
export const ANNOUNCEMENTS_TABLE = 'notifications.announcements';
export const ATTACHMENTS_TABLE = 'notifications.attachments';
export const SETTINGS_TABLE = 'notifications.settings';

export interface NotificationRow {
  id: string;
  accountId: string;
  orgId: string | null;
  category: string;
  title: string;
  body: string;
  link: string | null;
  announcementId: string | null;
  createdAt: Date;
  readAt: Date | null;
  deletedAt: Date | null;
}

export interface AttachmentRow {
  id: string;
  orgId: string;
  uploadedBy: string;
  blobKey: string;
  fileName: string;
  contentType: string;
  sizeBytes: string | number;
  sha256: string;
  announcementId: string | null;
  createdAt: Date;
}

/** An attachment as answered. */
export interface AttachmentDto {
  id: string;
  fileName: string;
  sizeBytes: number;
  contentType: string;
}

export function toAttachmentDto(row: AttachmentRow): AttachmentDto {
  return { id: row.id, fileName: row.fileName, sizeBytes: Number(row.sizeBytes), contentType: row.contentType };
}
