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

