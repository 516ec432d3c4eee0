/**
 * The notifications plugin's public API: the `notify` service other plugins call.
 * (A plugin imports only another plugin's `api.ts`, never its other files.)
 * @see docs/api/notifications.md
 */
import { createServiceRef } from '../../core/index.ts';
import type { NotifyService } from './service-interfaces.ts';

export type { NotificationCategory, NotifyInput, NotifyService } from './service-interfaces.ts';

/** Service refs of the notifications plugin. */
export const notificationsRefs = {
  notify: createServiceRef<NotifyService>('notifications.notify'),
};
