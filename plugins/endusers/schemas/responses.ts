import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `endusers/EndUser`. @see docs/api/endusers.md "The end user object" */
export const endUser = {
  $id: 'endusers/EndUser',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'badge', 'email', 'displayName', 'status', 'emailVerifiedAt', 'source', 'appGroupIds', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    badge: { type: 'string', description: '`eu_…`, the organization-scoped identity.' },
    email: { type: 'string' },
    displayName: NULLABLE_STRING,
    status: { enum: ['Pending', 'Active', 'Suspended'] },
    emailVerifiedAt: NULLABLE_DATE_TIME,
    source: { type: 'string' },
    appGroupIds: { type: 'array', items: { type: 'string', format: 'uuid' } },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `endusers/list.response`. */
export const endUserListResponse = {
  $id: 'endusers/list.response',
  type: 'object',
  additionalProperties: false,
  required: ['endUsers', 'page', 'pageSize', 'total'],
  properties: {
    endUsers: { type: 'array', items: schemaRef(endUser) },
    page: { type: 'integer' },
    pageSize: { type: 'integer' },
    total: { type: 'integer' },
  },
} as const satisfies RouteSchema;

/** `endusers/import.response`: one answer per row, in request order. */
export const importResponse = {
  $id: 'endusers/import.response',
  type: 'object',
  additionalProperties: false,
  required: ['results'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['index', 'email', 'result'],
        properties: {
          index: { type: 'integer' },
          email: { type: 'string' },
          result: { enum: ['created', 'duplicate', 'invalid'] },
          reason: { enum: ['email_invalid', 'display_name_invalid', 'password_hash_incomplete', 'duplicate_in_request', 'exists'] },
          endUserId: { type: 'string', format: 'uuid' },
          accessGranted: { type: 'boolean' },
        },
      },
    },
  },
} as const satisfies RouteSchema;

/** `endusers/verify-invite.response`. */
export const verifyInviteResponse = {
  $id: 'endusers/verify-invite.response',
  type: 'object',
  additionalProperties: false,
  required: ['endUserId', 'orgSlug', 'appGroupId', 'email'],
  properties: {
    endUserId: { type: 'string', format: 'uuid' },
    orgSlug: { type: 'string' },
    appGroupId: { type: ['string', 'null'], format: 'uuid' },
    email: { type: 'string' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `endusers/permissions.response`: the stored list. */
export const permissionsResponse = {
  $id: 'endusers/permissions.response',
  type: 'object',
  additionalProperties: false,
  required: ['permissions'],
  properties: { permissions: { type: 'array', items: { type: 'string' } } },
} as const satisfies RouteSchema;
