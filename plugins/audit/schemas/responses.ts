import { ACTOR, DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, deadLetterSchema, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `audit/AuditEvent`: a sealed audit event (no hashes). @see docs/audit.md */
export const auditEvent = {
  $id: 'audit/AuditEvent',
  type: 'object',
  required: ['id', 'seq', 'eventType', 'occurredAt', 'actor', 'appGroupId', 'businessData', 'sealedAt'],
  properties: {
    id: { type: 'string' },
    seq: { type: 'integer' },
    eventType: { type: 'string' },
    occurredAt: DATE_TIME,
    actor: ACTOR,
    appGroupId: NULLABLE_STRING,
    businessData: { type: 'object' },
    sealedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `audit/query.response`: a page of events, newest first, and the window it covers. */
export const queryResponse = {
  $id: 'audit/query.response',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'nextCursor', 'window'],
  properties: {
    items: { type: 'array', items: schemaRef(auditEvent) },
    nextCursor: NULLABLE_STRING,
    window: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to', 'windowStartUtc', 'retentionDays', 'clipped'],
      properties: { from: DATE_TIME, to: DATE_TIME, windowStartUtc: NULLABLE_DATE_TIME, retentionDays: { type: ['integer', 'null'] }, clipped: { type: 'boolean' } },
    },
  },
} as const satisfies RouteSchema;

/** `audit/detail.response`: one event with its hashes. */
export const detailResponse = {
  $id: 'audit/detail.response',
  allOf: [schemaRef(auditEvent), {
    type: 'object',
    required: ['hashVersion', 'payloadHash', 'prevHash', 'chainHash'],
    properties: { hashVersion: { enum: [1, 2] }, payloadHash: { type: 'string' }, prevHash: { type: 'string' }, chainHash: { type: 'string' } },
  }],
} as const satisfies RouteSchema;

/** `audit/dead-letters.response`: a page of dead letters, oldest first. */
export const deadLettersResponse = {
  $id: 'audit/dead-letters.response',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'nextCursor'],
  properties: { items: { type: 'array', items: schemaRef(deadLetterSchema) }, nextCursor: NULLABLE_STRING },
} as const satisfies RouteSchema;

/** `audit/ingest.response` (202): how many events were accepted and their ids, in request order. */
export const ingestResponse = {
  $id: 'audit/ingest.response',
  type: 'object',
  additionalProperties: false,
  required: ['accepted', 'ids', 'firstSeq', 'lastSeq', 'chainHash', 'sealedAt', 'replayed'],
  properties: {
    accepted: { type: 'integer' }, ids: { type: 'array', items: { type: 'string' } },
    firstSeq: { type: 'integer' }, lastSeq: { type: 'integer' }, chainHash: { type: 'string' }, sealedAt: { type: 'string', format: 'date-time' },
    replayed: { type: 'boolean' },
  },
} as const satisfies RouteSchema;

/** `audit/jwks.response`: the platform audit JWKS (checkpoint keys, retired ones included). */
export const auditJwksResponse = {
  $id: 'audit/jwks.response',
  type: 'object',
  required: ['keys'],
  properties: { keys: { type: 'array', items: { type: 'object', required: ['kty'], properties: { kty: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string' } } } } },
} as const satisfies RouteSchema;

/** `audit/retention.response`: the retention window and purge schedule. */
export const retentionResponse = {
  $id: 'audit/retention.response',
  type: 'object',
  additionalProperties: false,
  required: ['planKey', 'retentionDays', 'unlimited', 'windowStartUtc', 'isContractOverride', 'graceDays', 'noticeCount', 'noticeCountPolicy', 'noticeIntervalDays', 'firstNoticeAt', 'finalNoticeAt', 'purgeScheduledAt', 'purgeUnlocked'],
  properties: {
    planKey: { type: 'string' },
    retentionDays: { type: ['integer', 'null'] },
    unlimited: { type: 'boolean' },
    windowStartUtc: NULLABLE_DATE_TIME,
    isContractOverride: { type: 'boolean' },
    graceDays: { type: 'integer' },
    noticeCount: { type: 'integer' },
    noticeCountPolicy: { const: 'fixed' },
    noticeIntervalDays: { type: 'integer' },
    firstNoticeAt: NULLABLE_DATE_TIME,
    finalNoticeAt: NULLABLE_DATE_TIME,
    purgeScheduledAt: NULLABLE_DATE_TIME,
    purgeUnlocked: { type: 'boolean' },
    purgeHorizon: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['throughSeq', 'day', 'purgedRows', 'purgedAt'],
      properties: { throughSeq: { type: 'integer' }, day: { type: 'string' }, purgedRows: { type: 'integer' }, purgedAt: DATE_TIME },
    },
  },
} as const satisfies RouteSchema;

const hashCheck = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'stored', 'recomputed'],
  properties: { ok: { type: 'boolean' }, stored: { type: 'string' }, recomputed: NULLABLE_STRING },
} as const;

/** `audit/verify.response`: one stored record verified (hashes, link, nearest checkpoint). */
export const verifyResponse = {
  $id: 'audit/verify.response',
  type: 'object',
  additionalProperties: false,
  required: ['logId', 'orgId', 'seq', 'eventType', 'sealedAt', 'ok', 'payloadHash', 'chainHash', 'link', 'checkpoint'],
  properties: {
    logId: { type: 'string' },
    orgId: { type: 'string' },
    seq: { type: 'integer' },
    eventType: { type: 'string' },
    sealedAt: DATE_TIME,
    ok: { type: 'boolean' },
    payloadHash: hashCheck,
    chainHash: hashCheck,
    link: {
      type: 'object',
      additionalProperties: false,
      required: ['ok', 'previousSeq', 'expected', 'stored'],
      properties: { ok: { type: 'boolean' }, previousSeq: { type: ['integer', 'null'] }, expected: NULLABLE_STRING, stored: { type: 'string' } },
    },
    checkpoint: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'detail'],
      properties: {
        status: { enum: ['matched', 'mismatch', 'chain_broken', 'signature_invalid', 'pending'] },
        seq: { type: 'integer' },
        kid: { type: 'string' },
        signedAt: DATE_TIME,
        recordsChecked: { type: 'integer' },
        firstBroken: {
          type: 'object',
          additionalProperties: false,
          required: ['seq', 'id', 'reason', 'detail'],
          properties: { seq: { type: 'integer' }, id: { type: 'string' }, reason: { type: 'string' }, detail: { type: 'string' } },
        },
        detail: { type: 'string' },
      },
    },
    horizon: {
      type: 'object',
      additionalProperties: false,
      required: ['throughSeq', 'day', 'ok', 'detail'],
      properties: { throughSeq: { type: 'integer' }, day: { type: 'string' }, ok: { type: 'boolean' }, detail: { type: 'string' } },
    },
  },
} as const satisfies RouteSchema;
