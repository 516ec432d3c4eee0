import type { Logger } from 'pino';
import type { EventBus } from '../../core/index.ts';
import type { NotifyService } from './service-interfaces.ts';

/** The domain event the apps plugin emits after an app group was created. */
export const APP_GROUP_CREATED = 'org.app_group.created';

/**
 * Tells an organization's Owners that an app group was created (`org.app_group.created` on
 * `core.events`, after the creation committed). A failure is logged; the creation stands.
 * @returns the subscription, to end on shutdown.
 */
export function notifyOwnersOfNewAppGroups(events: EventBus, notifier: NotifyService, logger: Logger) {
  return events.on(APP_GROUP_CREATED).subscribe((event) => {
    const { orgId, appGroupId } = event.payload as { orgId: string; appGroupId: string };
    notifier.notify({
      orgId, recipients: 'owners', category: 'System', title: 'App group created',
      body: 'A new app group was created in your organization.', link: `/app-groups/${appGroupId}`,
    }).catch((err: unknown) => logger.error({ err, orgId, appGroupId }, 'app group notification failed'));
  });
}
