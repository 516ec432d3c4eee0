import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/query.query`. */
export const queryQuery = {
  $id: 'audit/query.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: {
    orgSlug: { type: 'string', minLength: 1, maxLength: 100 },
    scope: { type: 'string', enum: ['mine', 'all'] },
    eventTypes: { type: 'string', maxLength: 2000 },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    cursor: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 500 },
  },
} as const satisfies RouteSchema;
