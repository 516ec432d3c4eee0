import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `webhooks/Endpoint` (never the secret). @see docs/api/webhooks.md */
export const endpoint = {
  $id: 'webhooks/Endpoint',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'events', 'description', 'isActive', 'consecutiveFailures', 'disabledAt', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    description: NULLABLE_STRING,
    isActive: { type: 'boolean' },
    consecutiveFailures: { type: 'integer', minimum: 0, description: 'Failures since the last success; 20 disable the endpoint.' },
    disabledAt: NULLABLE_DATE_TIME,
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `webhooks/endpoints-list.response`. */
export const endpointsListResponse = {
  $id: 'webhooks/endpoints-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['webhookEndpoints'],
  properties: { webhookEndpoints: { type: 'array', items: schemaRef(endpoint) } },
} as const satisfies RouteSchema;

const SECRET = { type: 'string', pattern: '^whsec_', description: 'The signing secret, shown this once.' } as const;

/** `webhooks/endpoint-created.response`: the endpoint and its secret, shown once. */
export const endpointCreatedResponse = {
  $id: 'webhooks/endpoint-created.response',
  type: 'object',
  additionalProperties: false,
  required: [...endpoint.required, 'secret'],
  properties: { ...endpoint.properties, secret: SECRET },
} as const satisfies RouteSchema;

/** `webhooks/secret.response`: `{ id, secret }` after a rotation. */
export const secretResponse = {
  $id: 'webhooks/secret.response',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'secret'],
  properties: { id: { type: 'string', format: 'uuid' }, secret: SECRET },
} as const satisfies RouteSchema;

const NULLABLE_INTEGER = { type: ['integer', 'null'] } as const;

/** `webhooks/deliveries.response`. @see docs/api/webhooks.md "Deliveries" */
export const deliveriesResponse = {
  $id: 'webhooks/deliveries.response',
  type: 'object',
  additionalProperties: false,
  required: ['deliveries', 'nextCursor'],
  properties: {
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'auditEventId', 'eventSeq', 'eventType', 'outcome', 'httpStatus', 'latencyMs', 'failureClass', 'detail', 'attemptedAt', 'completedAt'],
        properties: {
          id: { type: 'string', description: '`msg_…`: the envelope id and `webhook-id` header.' },
          auditEventId: { type: 'string', format: 'uuid' },
          eventSeq: { type: 'integer' },
          eventType: { type: 'string' },
          outcome: { enum: ['sending', 'succeeded', 'failed', 'skipped', 'unknown'] },
          httpStatus: NULLABLE_INTEGER,
          latencyMs: NULLABLE_INTEGER,
          failureClass: NULLABLE_STRING,
          detail: NULLABLE_STRING,
          attemptedAt: DATE_TIME,
          completedAt: NULLABLE_DATE_TIME,
        },
      },
    },
    nextCursor: NULLABLE_STRING,
  },
} as const satisfies RouteSchema;
