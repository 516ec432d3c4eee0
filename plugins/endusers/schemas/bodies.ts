import type { RouteSchema } from '../../../core/index.ts';

/** Most rows one import request takes. */
export const MAX_IMPORT_ROWS = 500;

/**
 * An import row's email and display name: only their type and an outer bound are checked here (a
 * longer string refuses the whole request); the row rules (a sane email of at most 254 characters, a
 * display name) answer the row alone `invalid`. @see docs/api/endusers.md "Bulk import"
 */
const ROW_STRING = { type: 'string', maxLength: 1000 } as const;
const APP_GROUP_ID = { type: 'string', format: 'uuid' } as const;

/** JSON Schema `endusers/create.body`. */
export const createBody = {
  $id: 'endusers/create.body',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'appGroupId'],
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    displayName: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' },
    appGroupId: APP_GROUP_ID,
  },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/bulk-import.body`. */
export const bulkImportBody = {
  $id: 'endusers/bulk-import.body',
  type: 'object',
  additionalProperties: false,
  required: ['appGroupId', 'users'],
  properties: {
    appGroupId: APP_GROUP_ID,
    users: {
      type: 'array', minItems: 1, maxItems: MAX_IMPORT_ROWS,
      items: { type: 'object', additionalProperties: false, required: ['email'], properties: { email: ROW_STRING, displayName: ROW_STRING } },
    },
  },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/public-import.body`: password hashes are stored dormant. */
export const publicImportBody = {
  $id: 'endusers/public-import.body',
  type: 'object',
  additionalProperties: false,
  required: ['appGroupId', 'source', 'sendInvites', 'users'],
  properties: {
    appGroupId: APP_GROUP_ID,
    source: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:-]+$' },
    sendInvites: { type: 'boolean' },
    users: {
      type: 'array', minItems: 1, maxItems: MAX_IMPORT_ROWS,
      items: {
        type: 'object', additionalProperties: false, required: ['email'],
        properties: {
          email: ROW_STRING, displayName: ROW_STRING,
          passwordHash: { type: 'string', minLength: 1, maxLength: 1000 },
          passwordHashAlgorithm: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._$-]+$' },
        },
      },
    },
  },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/verify-invite.body`. */
export const verifyInviteBody = {
  $id: 'endusers/verify-invite.body',
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 200 } },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/permissions.body`: the rules beyond the shape (pattern, count) are the service's, answered 400 `VALIDATION_FAILED`. */
export const permissionsBody = {
  $id: 'endusers/permissions.body',
  type: 'object',
  additionalProperties: false,
  required: ['permissions'],
  properties: { permissions: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } } },
} as const satisfies RouteSchema;
