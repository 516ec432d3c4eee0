import type { RouteSchema } from '../../../core/index.ts';

const UUID = { type: 'string', format: 'uuid' } as const;
const ORG_SLUG = { type: 'string', minLength: 1, maxLength: 39 } as const;

/** `notifications/delete.body`: the caller's notifications to delete, at most 100. */
export const deleteBody = {
  $id: 'notifications/delete.body',
  type: 'object',
  additionalProperties: false,
  required: ['ids'],
  properties: { ids: { type: 'array', minItems: 1, maxItems: 100, items: UUID } },
} as const satisfies RouteSchema;

/** `notifications/send.body`: an announcement of the organization `orgSlug`. */
export const sendBody = {
  $id: 'notifications/send.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug', 'title', 'body'],
  properties: {
    orgSlug: ORG_SLUG,
    title: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    body: { type: 'string', minLength: 1, maxLength: 5000, pattern: '\\S' },
    link: { type: 'string', maxLength: 2048, pattern: '^(/|https://)', description: 'A path of the dashboard (`/…`) or an https URL.' },
    recipientConnectedIds: { type: 'array', minItems: 1, maxItems: 10000, items: UUID, description: 'Membership ids; every active member when absent.' },
    attachmentIds: { type: 'array', maxItems: 10, items: UUID, description: 'Unsent attachments of the organization (`POST /org/attachments`).' },
  },
} as const satisfies RouteSchema;

/** `notifications/attachment-upload.query`: the organization the attachment is for. */
export const attachmentUploadQuery = {
  $id: 'notifications/attachment-upload.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: ORG_SLUG },
} as const satisfies RouteSchema;

/** `notifications/id.params`. */
export const idParams = {
  $id: 'notifications/id.params',
  type: 'object',
  required: ['id'],
  properties: { id: UUID },
} as const satisfies RouteSchema;

/** `notifications/attachment-id.params`. */
export const attachmentIdParams = {
  $id: 'notifications/attachment-id.params',
  type: 'object',
  required: ['attachmentId'],
  properties: { attachmentId: UUID },
} as const satisfies RouteSchema;

/** `notifications/slug.params`. */
export const slugParams = {
  $id: 'notifications/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** `notifications/settings.body`: an organization's notification settings, replaced whole. */
export const settingsBody = {
  $id: 'notifications/settings.body',
  type: 'object',
  additionalProperties: false,
  required: ['emailCategories', 'digest'],
  properties: {
    emailCategories: { type: 'array', maxItems: 2, uniqueItems: true, items: { enum: ['Org', 'System'] }, description: 'Categories also mailed to their recipients.' },
    digest: { enum: ['off', 'daily', 'weekly'], description: '`off`: one mail per notification; `daily`/`weekly`: one summary mail.' },
  },
} as const satisfies RouteSchema;
