import { DATE_TIME, NULLABLE_DATE_TIME, schemaRef, type RouteSchema } from '../../../core/index.ts';

const SHARE_MODE = { enum: ['restricted', 'link_anyone'] } as const;
const NULLABLE_BYTES = { type: ['integer', 'null'], minimum: 0 } as const;

/** Shared schema `files/File`. @see docs/api/files.md "File" */
export const file = {
  $id: 'files/File',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'fileName', 'contentType', 'sizeBytes', 'sha256', 'uploadedAt', 'deletedAt', 'scope', 'shareMode', 'shareToken', 'appGroupId'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    fileName: { type: 'string', description: 'The sanitised name the file is stored under.' },
    contentType: { type: 'string', description: 'Read from the bytes where possible.' },
    sizeBytes: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hash of the bytes the server received.' },
    uploadedAt: DATE_TIME,
    deletedAt: { ...NULLABLE_DATE_TIME, description: 'null while live.' },
    scope: { type: 'string', description: '`free` for files uploaded through the file box, `meeting:{meetingId}` for a meeting\'s.' },
    shareMode: SHARE_MODE,
    shareToken: { type: 'string', format: 'uuid' },
    appGroupId: { type: ['string', 'null'], description: 'The app group a console upload was made for (`?appGroupId=`), else null.' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/file-page.response`. */
export const filePage = {
  $id: 'files/file-page.response',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'page', 'pageSize', 'total'],
  properties: {
    items: { type: 'array', items: schemaRef(file) },
    page: { type: 'integer', minimum: 1 },
    pageSize: { type: 'integer', minimum: 1 },
    total: { type: 'integer', minimum: 0 },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/download.response`. */
export const download = {
  $id: 'files/download.response',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'fileName', 'expiresInMinutes'],
  properties: { url: { type: 'string', format: 'uri' }, fileName: { type: 'string' }, expiresInMinutes: { const: 10 } },
} as const satisfies RouteSchema;

/** JSON Schema `files/trashed.response`. */
export const trashed = {
  $id: 'files/trashed.response',
  type: 'object',
  additionalProperties: false,
  required: ['trashed', 'retentionDays', 'restorableUntil'],
  properties: { trashed: { const: true }, retentionDays: { enum: [7, 30] }, restorableUntil: DATE_TIME },
} as const satisfies RouteSchema;

/** JSON Schema `files/storage-usage.response`. */
export const storageUsage = {
  $id: 'files/storage-usage.response',
  type: 'object',
  additionalProperties: false,
  required: ['usedBytes', 'limitBytes', 'remainingBytes', 'fileCount', 'trashedBytes', 'trashedCount', 'trashRetentionDays'],
  properties: {
    usedBytes: { type: 'integer', minimum: 0, description: 'Bytes of live files: the number the upload gate enforces.' },
    limitBytes: { ...NULLABLE_BYTES, description: 'null on unlimited plans.' },
    remainingBytes: { ...NULLABLE_BYTES, description: 'null on unlimited plans.' },
    fileCount: { type: 'integer', minimum: 0 },
    trashedBytes: { type: 'integer', minimum: 0 },
    trashedCount: { type: 'integer', minimum: 0 },
    trashRetentionDays: { enum: [7, 30] },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/share.response`. */
export const share = {
  $id: 'files/share.response',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'fileName', 'mode', 'shareToken', 'shareUrl'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    fileName: { type: 'string' },
    mode: SHARE_MODE,
    shareToken: { type: 'string', format: 'uuid' },
    shareUrl: { type: ['string', 'null'], format: 'uri', description: 'null while restricted.' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/shared-file.response`. */
export const sharedFile = {
  $id: 'files/shared-file.response',
  type: 'object',
  additionalProperties: false,
  required: ['fileName', 'contentType', 'sizeBytes', 'sha256', 'uploadedAt', 'disposition', 'contentUrl', 'expiresInMinutes'],
  properties: {
    fileName: { type: 'string' },
    contentType: { type: 'string' },
    sizeBytes: { type: 'integer', minimum: 0 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    uploadedAt: DATE_TIME,
    disposition: { enum: ['inline', 'attachment'], description: '`inline` only for images, PDF, audio and video recognised from their bytes.' },
    contentUrl: { type: 'string', format: 'uri' },
    expiresInMinutes: { const: 10 },
  },
} as const satisfies RouteSchema;

/** Shared schema `files/LifecycleRule`. @see docs/api/files.md "Lifecycle rules" */
export const lifecycleRule = {
  $id: 'files/LifecycleRule',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'action', 'unaccessedDays', 'scope', 'enabled', 'planAllows', 'lastRunAt', 'lastRunCount', 'lastRunBytes', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    action: { enum: ['transition_ia', 'trash'] },
    unaccessedDays: { type: 'integer', minimum: 30, maximum: 3650 },
    scope: { type: ['string', 'null'], description: 'null: all files.' },
    enabled: { type: 'boolean' },
    planAllows: { type: 'boolean', description: 'false after a downgrade: the rule is kept but not run.' },
    lastRunAt: NULLABLE_DATE_TIME,
    lastRunCount: { type: ['integer', 'null'], minimum: 0 },
    lastRunBytes: NULLABLE_BYTES,
    createdAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/lifecycle-rules.response`. */
export const lifecycleRules = {
  $id: 'files/lifecycle-rules.response',
  type: 'object',
  additionalProperties: false,
  required: ['rules', 'maxRules', 'canCustomize', 'canTrash', 'presetDays', 'minDays', 'maxDays'],
  properties: {
    rules: { type: 'array', items: schemaRef(lifecycleRule) },
    maxRules: { type: 'integer' },
    canCustomize: { type: 'boolean' },
    canTrash: { type: 'boolean' },
    presetDays: { type: 'integer' },
    minDays: { type: 'integer' },
    maxDays: { type: 'integer' },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/sharing-policy.response`. */
export const sharingPolicy = {
  $id: 'files/sharing-policy.response',
  type: 'object',
  additionalProperties: false,
  required: ['blockExternalSharing'],
  properties: { blockExternalSharing: { type: 'boolean' } },
} as const satisfies RouteSchema;

/** JSON Schema `files/sharing-policy-set.response`: the policy and how many open links it closed now. */
export const sharingPolicySet = {
  $id: 'files/sharing-policy-set.response',
  type: 'object',
  additionalProperties: false,
  required: ['blockExternalSharing', 'closedShares'],
  properties: { blockExternalSharing: { type: 'boolean' }, closedShares: { type: 'integer', minimum: 0 } },
} as const satisfies RouteSchema;
