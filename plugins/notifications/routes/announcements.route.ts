import { route, type RouteDef } from '../../../core/index.ts';
import type { AnnouncementsService } from '../announcements.service.ts';
import { ATTACHMENT_MAX_BYTES, type AttachmentsService } from '../attachments.service.ts';
import { attachmentIdParams, attachmentUploadQuery, sendBody } from '../schemas/requests.ts';
import { announcement, attachment, downloadResponse } from '../schemas/responses.ts';

/**
 * Organization announcements under `/api/v1/notifications/org`: send (Owner or Admin of the
 * organization the body names), upload an attachment first (multipart part `file`, at most 10 MB),
 * and download one (recipients, Owner and Admins) through a short-lived URL.
 * @see docs/api/notifications.md
 */
export function announcementRoutes(announcements: AnnouncementsService, attachments: AttachmentsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/notifications/org/send', auth: 'session', body: sendBody, status: 201, response: announcement,
      summary: 'Send an announcement (category Org) to every active member or to the listed memberships; Owner or Admin', tags: ['notifications'],
      handler: async ({ principal, body }) => announcements.send(principal.accountId, body),
    }),
    route({
      method: 'POST', path: '/api/v1/notifications/org/attachments', auth: 'session', query: attachmentUploadQuery,
      upload: { field: 'file', maxBytes: ATTACHMENT_MAX_BYTES }, status: 201, response: attachment,
      summary: 'Upload an announcement attachment (multipart part file, at most 10 MB) before sending; Owner or Admin', tags: ['notifications'],
      handler: async ({ principal, query, upload }) => attachments.upload(query.orgSlug, principal.accountId, upload),
    }),
    route({
      method: 'GET', path: '/api/v1/notifications/org/attachments/{attachmentId}/download', auth: 'session', params: attachmentIdParams,
      response: downloadResponse, summary: "A short-lived download URL of an attachment: the announcement's recipients, the organization's Owner and Admins",
      tags: ['notifications'],
      handler: async ({ principal, params }) => attachments.downloadUrl(params.attachmentId, principal.accountId),
    }),
  ];
}
