import { createServiceRef } from '../../core/index.ts';
import type { AnnouncementsService } from './announcements.service.ts';
import type { AttachmentsService } from './attachments.service.ts';
import type { InboxService } from './inbox.service.ts';
import type { OrgAccess } from './org-access.ts';
import type { SettingsService } from './settings.service.ts';

/** Services internal to the notifications plugin (not in api.ts). */
export const notificationsInternalRefs = {
  orgAccess: createServiceRef<OrgAccess>('notifications.orgAccess'),
  inbox: createServiceRef<InboxService>('notifications.inbox'),
  announcements: createServiceRef<AnnouncementsService>('notifications.announcements'),
  attachments: createServiceRef<AttachmentsService>('notifications.attachments'),
  settings: createServiceRef<SettingsService>('notifications.settings'),
};
