import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/ingest.body`. */
export const ingestBody = {
  $id: 'audit/ingest.body',
  type: 'object',
  additionalProperties: false,
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['eventType'],
        properties: {
          eventType: { type: 'string', maxLength: 200, pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+$' },
          occurredAt: { type: 'string', format: 'date-time' },
          businessData: { type: 'object' },
        },
      },
    },
  },
} as const satisfies RouteSchema;
