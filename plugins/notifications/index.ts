import { coreRefs, definePlugin } from '../../core/index.ts';
import { notificationsRefs } from './api.ts';
import { notificationsInternalRefs as internal } from './internal-refs.ts';
import { AnnouncementsService } from './announcements.service.ts';
import { notifyOwnersOfNewAppGroups } from './app-group-notices.ts';
import { AttachmentsService } from './attachments.service.ts';
import { InboxService } from './inbox.service.ts';
import { NotifierService } from './notifier.service.ts';
import { OrgAccess } from './org-access.ts';
import { SettingsService } from './settings.service.ts';
import { announcementRoutes } from './routes/announcements.route.ts';
import { inboxRoutes } from './routes/inbox.route.ts';
import { settingsRoutes } from './routes/settings.route.ts';
import './errors.ts';

export default definePlugin({
  id: 'notifications',
  deps: {
    notifier: notificationsRefs.notify, inbox: internal.inbox, announcements: internal.announcements, attachments: internal.attachments,
    settings: internal.settings, events: coreRefs.events,
  },
  register(reg) {
    reg.service(notificationsRefs.notify, NotifierService);
    reg.service(internal.orgAccess, OrgAccess);
    reg.service(internal.inbox, InboxService);
    reg.service(internal.announcements, AnnouncementsService);
    reg.service(internal.attachments, AttachmentsService);
    reg.service(internal.settings, SettingsService);
  },
  init({ notifier, inbox, announcements, attachments, settings, events }, ctx) {
    ctx.routes(...inboxRoutes(inbox), ...announcementRoutes(announcements, attachments), ...settingsRoutes(settings, notifier));
    const subscription = notifyOwnersOfNewAppGroups(events, notifier, ctx.logger);
    ctx.onShutdown(() => subscription.unsubscribe());
  },
});
