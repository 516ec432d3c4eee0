import { route, type RouteDef } from '../../../core/index.ts';
import type { InboxService } from '../inbox.service.ts';
import { deleteBody, idParams } from '../schemas/requests.ts';
import { countResponse, notificationsListResponse, updatedResponse } from '../schemas/responses.ts';

/**
 * The caller's own notifications under `/api/v1/notifications`: list, unread count, mark read,
 * mark all read, soft delete.
 * @see docs/api/notifications.md
 */
export function inboxRoutes(inbox: InboxService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/v1/notifications', auth: 'session', response: notificationsListResponse,
      summary: "The caller's 20 newest notifications, with their announcements' attachments", tags: ['notifications'],
      handler: async ({ principal }) => ({ notifications: await inbox.list(principal.accountId) }),
    }),
    route({
      method: 'GET', path: '/api/v1/notifications/unread-count', auth: 'session', response: countResponse,
      summary: "How many of the caller's notifications are unread", tags: ['notifications'],
      handler: async ({ principal }) => ({ count: await inbox.unreadCount(principal.accountId) }),
    }),
    route({
      method: 'PATCH', path: '/api/v1/notifications/{id}/read', auth: 'session', params: idParams, response: { 204: null },
      summary: 'Mark one of the caller\'s notifications read', tags: ['notifications'],
      handler: async ({ principal, params }) => {
        await inbox.markRead(principal.accountId, params.id);
      },
    }),
    route({
      method: 'PATCH', path: '/api/v1/notifications/read-all', auth: 'session', response: updatedResponse,
      summary: "Mark all the caller's notifications read", tags: ['notifications'],
      handler: async ({ principal }) => ({ updated: await inbox.markAllRead(principal.accountId) }),
    }),
    route({
      method: 'DELETE', path: '/api/v1/notifications', auth: 'session', body: deleteBody, response: { 204: null },
      summary: "Delete some of the caller's notifications (all or none)", tags: ['notifications'],
      handler: async ({ principal, body }) => {
        await inbox.delete(principal.accountId, body.ids);
      },
    }),
  ];
}
