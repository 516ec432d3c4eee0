import { DATE_TIME, schemaRef, type RouteSchema } from '../../../core/index.ts';

const DAY = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } as const;

/** JSON Schema `audit/presign.query`: `orgSlug`, and `day` (`YYYY-MM-DD`, UTC: the day file) or `seq` (the batch file holding that record). */
export const presignQuery = {
  $id: 'audit/presign.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: { type: 'string', minLength: 1, maxLength: 100 }, day: DAY, seq: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
} as const satisfies RouteSchema;

/** JSON Schema `audit/BatchFileLink`: one raw batch file, its manifest figures and a signed download URL. */
export const batchFileLink = {
  $id: 'audit/BatchFileLink',
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'url', 'expiresAt', 'fileName', 'sha256', 'byteSize', 'rowCount', 'firstSeq', 'lastSeq', 'firstSealedAt', 'lastSealedAt'],
  properties: {
    kind: { const: 'batch' }, url: { type: 'string' }, expiresAt: DATE_TIME, fileName: { type: 'string' }, sha256: { type: 'string' },
    byteSize: { type: 'integer' }, rowCount: { type: 'integer' }, firstSeq: { type: 'integer' }, lastSeq: { type: 'integer' }, firstSealedAt: DATE_TIME, lastSealedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** JSON Schema `audit/compact-urls.query`: `orgSlug`, `from`, `to` (`YYYY-MM-DD`, UTC, inclusive). */
export const compactUrlsQuery = {
  $id: 'audit/compact-urls.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug', 'from', 'to'],
  properties: { orgSlug: { type: 'string', minLength: 1, maxLength: 100 }, from: DAY, to: DAY },
} as const satisfies RouteSchema;

/** Shared schema `audit/DayFileLink`: one day file, its manifest figures and a signed download URL. */
export const dayFileLink = {
  $id: 'audit/DayFileLink',
  type: 'object',
  additionalProperties: false,
  required: ['day', 'url', 'expiresAt', 'fileName', 'sha256', 'byteSize', 'rowCount', 'firstSeq', 'lastSeq', 'prevHash', 'headHash'],
  properties: {
    day: DAY, url: { type: 'string' }, expiresAt: DATE_TIME, fileName: { type: 'string' }, sha256: { type: 'string' },
    byteSize: { type: 'integer' }, rowCount: { type: 'integer' }, firstSeq: { type: 'integer' }, lastSeq: { type: 'integer' },
    prevHash: { type: 'string' }, headHash: { type: 'string' },
  },
} as const satisfies RouteSchema;

/** `audit/presign.response`: one day file. */
export const presignResponse = {
  $id: 'audit/presign.response',
  oneOf: [schemaRef(dayFileLink), schemaRef(batchFileLink)],
} as const satisfies RouteSchema;

/** `audit/compact-urls.response`: the day files of a window, oldest first (days without one are left out). */
export const compactUrlsResponse = {
  $id: 'audit/compact-urls.response',
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'files'],
  properties: { from: DAY, to: DAY, files: { type: 'array', items: schemaRef(dayFileLink) } },
} as const satisfies RouteSchema;
