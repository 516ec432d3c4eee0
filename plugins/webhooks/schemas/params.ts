import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `webhooks/slug.params`. */
export const slugParams = {
  $id: 'webhooks/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** JSON Schema `webhooks/endpoint-id.params`. */
export const endpointIdParams = {
  $id: 'webhooks/endpoint-id.params',
  type: 'object',
  required: ['slug', 'id'],
  properties: { slug: { type: 'string', maxLength: 39 }, id: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `webhooks/deliveries.query`: `limit` 1–100 (default 50), `after` a `nextCursor`. */
export const deliveriesQuery = {
  $id: 'webhooks/deliveries.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    after: { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' },
  },
} as const satisfies RouteSchema;
