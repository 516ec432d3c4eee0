import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `files/list.query`. */
export const listQuery = {
  $id: 'files/list.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    trashed: { type: 'boolean', description: 'true lists the trash instead of live files.' },
    q: { type: 'string', minLength: 1, maxLength: 255, description: 'Only files whose name contains this (any case).' },
    page: { type: 'integer', minimum: 1, maximum: 100000, default: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const satisfies RouteSchema;

/** JSON Schema `files/file-id.params`. */
export const fileIdParams = {
  $id: 'files/file-id.params',
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `files/share-token.params`. */
export const shareTokenParams = {
  $id: 'files/share-token.params',
  type: 'object',
  required: ['shareToken'],
  properties: { shareToken: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `files/share.body`: `mode` is checked by the handler, so a wrong one answers `invalid_mode`. */
export const shareBody = {
  $id: 'files/share.body',
  type: 'object',
  additionalProperties: false,
  properties: { mode: { type: 'string', maxLength: 32, description: '`restricted` or `link_anyone`.' } },
} as const satisfies RouteSchema;


const RULE_FIELDS = {
  action: { description: '`transition_ia` or `trash` (checked by the handler: `invalid_action`).' },
  unaccessedDays: { description: 'Days without access, an integer from 30 to 3650 (`invalid_days`).' },
  scope: { description: 'Omit (or null) for all files; `free`, `notification` or `project:{id}` (`invalid_scope`).' },
} as const;

/** JSON Schema `files/lifecycle-rule.body` (`POST /storage/lifecycle/rules`): fields checked by the handler so each answers its own code. */
export const ruleBody = {
  $id: 'files/lifecycle-rule.body',
  type: 'object',
  additionalProperties: false,
  properties: RULE_FIELDS,
} as const satisfies RouteSchema;

/** JSON Schema `files/lifecycle-rule-update.body` (`PUT /storage/lifecycle/rules/{id}`): only `{enabled:false}` pauses on any plan. */
export const ruleUpdateBody = {
  $id: 'files/lifecycle-rule-update.body',
  type: 'object',
  additionalProperties: false,
  properties: { ...RULE_FIELDS, enabled: { type: 'boolean' } },
} as const satisfies RouteSchema;

/** JSON Schema `files/rule-id.params`. */
export const ruleIdParams = {
  $id: 'files/rule-id.params',
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `files/sharing-policy.body`. */
export const sharingPolicyBody = {
  $id: 'files/sharing-policy.body',
  type: 'object',
  additionalProperties: false,
  required: ['blockExternalSharing'],
  properties: { blockExternalSharing: { type: 'boolean', description: 'true closes every open share link and refuses new ones.' } },
} as const satisfies RouteSchema;

/** JSON Schema `files/console-list.query`: the public list's query plus `view`. */
export const consoleListQuery = {
  $id: 'files/console-list.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...listQuery.properties,
    view: { enum: ['mine', 'all'], default: 'mine', description: '`mine` (default): the files you uploaded; `all`: everyone\'s (needs `org.org_file.list`).' },
    appGroupId: { type: 'string', format: 'uuid', description: 'Only files uploaded for this app group.' },
    meetingId: { type: 'string', format: 'uuid', description: 'Only files of this meeting (scope `meeting:{meetingId}`).' },
  },
} as const satisfies RouteSchema;

/** `POST /api/org/{slug}/files` query: where the file is uploaded for. */
export const consoleUploadQuery = {
  $id: 'files/console-upload.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    meetingId: { type: 'string', format: 'uuid', description: 'File it under this meeting: scope `meeting:{meetingId}`.' },
    appGroupId: { type: 'string', format: 'uuid', description: 'Upload it for this app group of the organization.' },
  },
} as const satisfies RouteSchema;
