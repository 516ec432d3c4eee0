import { route, type RouteDef } from '../../../core/index.ts';
import type { NotifyService } from '../service-interfaces.ts';
import type { SettingsService } from '../settings.service.ts';
import { settingsBody, slugParams } from '../schemas/requests.ts';
import { countResponse, settings as settingsSchema } from '../schemas/responses.ts';

/**
 * `/api/org/{slug}/settings/notifications`: the organization's notification settings (read,
 * replace) and a test notification to the caller.
 * @see docs/api/notifications.md "Organization settings"
 */
export function settingsRoutes(settings: SettingsService, notifier: NotifyService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/settings/notifications', auth: 'session', org: true, scope: 'org.notification.read', params: slugParams,
      response: settingsSchema, summary: "The organization's notification settings", tags: ['notifications'],
      handler: async ({ org }) => settings.get(org.organization.id),
    }),
    route({
      method: 'PUT', path: '/api/org/{slug}/settings/notifications', auth: 'session', org: true, scope: 'org.notification.update', params: slugParams,
      body: settingsBody, response: settingsSchema, summary: "Replace the organization's notification settings", tags: ['notifications'],
      handler: async ({ org, principal, body }) => settings.put(org.organization.id, principal.accountId ?? null, body),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/settings/notifications/test', auth: 'session', org: true, scope: 'org.notification.test', params: slugParams,
      personOnly: 'the test notification goes to the calling person\'s own inbox', status: 201, response: countResponse,
      summary: 'Send the caller a test notification of the organization', tags: ['notifications'],
      handler: async ({ org, principal }) => ({
        count: await notifier.notify({
          orgId: org.organization.id, recipients: [principal.accountId], category: 'System', title: 'Test notification',
          body: `Notifications of ${org.organization.name} reach you.`,
        }),
      }),
    }),
  ];
}
