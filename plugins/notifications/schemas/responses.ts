import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';
import { settingsBody } from './requests.ts';

/** Shared schema `notifications/Attachment`. @see docs/api/notifications.md */
export const attachment = {
  $id: 'notifications/Attachment',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'fileName', 'sizeBytes', 'contentType'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    fileName: { type: 'string' },
    sizeBytes: { type: 'integer', minimum: 0 },
    contentType: { type: 'string' },
  },
} as const satisfies RouteSchema;

/** Shared schema `notifications/Notification`. */
export const notification = {
  $id: 'notifications/Notification',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'orgId', 'category', 'title', 'body', 'link', 'announcementId', 'attachments', 'createdAt', 'readAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    orgId: { type: ['string', 'null'], format: 'uuid' },
    category: { type: 'string', description: '`Org` (announcements) or `System`.' },
    title: { type: 'string' },
    body: { type: 'string' },
    link: NULLABLE_STRING,
    announcementId: { type: ['string', 'null'], format: 'uuid', description: 'Shared by every notification of one announcement.' },
    attachments: { type: 'array', items: schemaRef(attachment) },
    createdAt: DATE_TIME,
    readAt: NULLABLE_DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `notifications/list.response`: the newest 20. */
export const notificationsListResponse = {
  $id: 'notifications/list.response',
  type: 'object',
  additionalProperties: false,
  required: ['notifications'],
  properties: { notifications: { type: 'array', maxItems: 20, items: schemaRef(notification) } },
} as const satisfies RouteSchema;

/** `notifications/count.response`. */
export const countResponse = {
  $id: 'notifications/count.response',
  type: 'object',
  additionalProperties: false,
  required: ['count'],
  properties: { count: { type: 'integer', minimum: 0 } },
} as const satisfies RouteSchema;

/** `notifications/updated.response`. */
export const updatedResponse = {
  $id: 'notifications/updated.response',
  type: 'object',
  additionalProperties: false,
  required: ['updated'],
  properties: { updated: { type: 'integer', minimum: 0 } },
} as const satisfies RouteSchema;

/** `notifications/Announcement`: a sent announcement. */
export const announcement = {
  $id: 'notifications/Announcement',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'orgId', 'title', 'recipientCount', 'attachments', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The AnnouncementId of every recipient notification.' },
    orgId: { type: 'string', format: 'uuid' },
    title: { type: 'string' },
    recipientCount: { type: 'integer', minimum: 0 },
    attachments: { type: 'array', items: schemaRef(attachment) },
    createdAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `notifications/download.response`: a short-lived URL that downloads the attachment. */
export const downloadResponse = {
  $id: 'notifications/download.response',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'fileName', 'expiresInSeconds'],
  properties: {
    url: { type: 'string', description: 'GET it without credentials before it expires; answered with `Content-Disposition: attachment`.' },
    fileName: { type: 'string' },
    expiresInSeconds: { type: 'integer', minimum: 1 },
  },
} as const satisfies RouteSchema;

/** `notifications/Settings`. */
export const settings = {
  $id: 'notifications/Settings',
  type: 'object',
  additionalProperties: false,
  required: [...settingsBody.required],
  properties: settingsBody.properties,
} as const satisfies RouteSchema;
