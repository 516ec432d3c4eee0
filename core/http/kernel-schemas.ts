import { schemaRef, type RouteSchema } from './route.ts';
import { ACTOR, DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING } from './schema-parts.ts';

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
    oldestUnsealedAt: NULLABLE_DATE_TIME,
    deadLetters: { type: 'integer', minimum: 0 },
    sealer: {
      type: 'object',
      additionalProperties: false,
      required: ['state', 'consecutiveFailures', 'lastError', 'lastFailureAt', 'lastSuccessAt'],
      properties: {
        state: { enum: ['ok', 'failing'] },
        consecutiveFailures: { type: 'integer', minimum: 0 },
        lastError: NULLABLE_STRING,
        lastFailureAt: NULLABLE_DATE_TIME,
        lastSuccessAt: NULLABLE_DATE_TIME,
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
    occurredAt: DATE_TIME,
    actor: ACTOR,
    appGroupId: NULLABLE_STRING,
    businessDataJson: { type: 'string', description: 'The stored businessData as JSON text, cut at 65,536 characters.' },
    businessDataTruncated: { type: 'boolean' },
    enqueuedAt: DATE_TIME,
    reason: { type: 'string' },
    deadAt: DATE_TIME,
  },
} as const satisfies RouteSchema;
