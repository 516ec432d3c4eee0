import { schemaRef, type RouteSchema } from './route.ts';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

/** `kernel/healthz.response`: the process is up. @see docs/audit.md "Health and dead letters" */
export const healthzResponse = {
  $id: 'kernel/healthz.response',
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { const: 'ok' } },
} as const satisfies RouteSchema;

/** Shared schema `kernel/AuditHealth`: the audit chain's health (sealer lag, dead letters, this process's sealer). */
export const auditHealthSchema = {
  $id: 'kernel/AuditHealth',
  type: 'object',
  additionalProperties: false,
  required: ['sealerLagSeconds', 'oldestUnsealedAt', 'deadLetters', 'sealer'],
  properties: {
    sealerLagSeconds: { type: 'number', minimum: 0 },
    oldestUnsealedAt: nullableDateTime,
    deadLetters: { type: 'integer', minimum: 0 },
    sealer: {
      type: 'object',
      additionalProperties: false,
      required: ['state', 'consecutiveFailures', 'lastError', 'lastFailureAt', 'lastSuccessAt'],
      properties: {
        state: { enum: ['ok', 'failing'] },
        consecutiveFailures: { type: 'integer', minimum: 0 },
        lastError: { type: ['string', 'null'] },
        lastFailureAt: nullableDateTime,
        lastSuccessAt: nullableDateTime,
      },
    },
  },
} as const satisfies RouteSchema;

/** `kernel/readyz.response`: the database answers; the audit chain's health rides along. */
export const readyzResponse = {
  $id: 'kernel/readyz.response',
  type: 'object',
  additionalProperties: false,
  required: ['status', 'database', 'audit'],
  properties: { status: { const: 'ready' }, database: { enum: ['pglite', 'pg'] }, audit: schemaRef(auditHealthSchema) },
} as const satisfies RouteSchema;

/** Shared schema `kernel/DeadLetter`: an audit event the sealer could never seal, with the reason. */
export const deadLetterSchema = {
  $id: 'kernel/DeadLetter',
  type: 'object',
  additionalProperties: false,
  required: ['position', 'id', 'orgId', 'eventType', 'occurredAt', 'actor', 'appGroupId', 'businessDataJson', 'businessDataTruncated', 'enqueuedAt', 'reason', 'deadAt'],
  properties: {
    position: { type: 'string' },
    id: { type: 'string' },
    orgId: { type: 'string' },
    eventType: { type: 'string' },
    occurredAt: dateTime,
    actor: { type: 'object', additionalProperties: false, required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'string' } } },
    appGroupId: { type: ['string', 'null'] },
    businessDataJson: { type: 'string', description: 'The stored businessData as JSON text, cut at 65,536 characters.' },
    businessDataTruncated: { type: 'boolean' },
    enqueuedAt: dateTime,
    reason: { type: 'string' },
    deadAt: dateTime,
  },
} as const satisfies RouteSchema;
