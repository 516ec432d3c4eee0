import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/dead-letters.query`. */
export const deadLettersQuery = {
  $id: 'audit/dead-letters.query',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    after: { type: 'string', pattern: '^[0-9]{1,18}$' },
    orgId: { type: 'string', format: 'uuid' },
  },
} as const satisfies RouteSchema;
