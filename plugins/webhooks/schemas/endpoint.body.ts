import type { RouteSchema } from '../../../core/index.ts';

const URL_FIELD = { type: 'string', minLength: 1, maxLength: 2048 } as const;
// Pattern grammar is checked by the service (400 WEBHOOK_EVENTS_INVALID); the schema bounds the shape.
const EVENTS = { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 200 } } as const;
const DESCRIPTION = { type: ['string', 'null'], maxLength: 500, format: 'display-name' } as const;

/** JSON Schema `webhooks/create-endpoint.body`. @see docs/api/webhooks.md */
export const createEndpointBody = {
  $id: 'webhooks/create-endpoint.body',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: { url: URL_FIELD, events: EVENTS, description: DESCRIPTION },
} as const satisfies RouteSchema;

/** JSON Schema `webhooks/update-endpoint.body`: only the members sent change. */
export const updateEndpointBody = {
  $id: 'webhooks/update-endpoint.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { url: URL_FIELD, events: EVENTS, description: DESCRIPTION },
} as const satisfies RouteSchema;

/** JSON Schema `webhooks/toggle.body`. */
export const toggleBody = {
  $id: 'webhooks/toggle.body',
  type: 'object',
  additionalProperties: false,
  required: ['isActive'],
  properties: { isActive: { type: 'boolean' } },
} as const satisfies RouteSchema;
