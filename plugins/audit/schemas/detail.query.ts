import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/detail.query`. */
export const detailQuery = {
  $id: 'audit/detail.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug', 'id'],
  properties: {
    orgSlug: { type: 'string', minLength: 1, maxLength: 100 },
    id: { type: 'string', format: 'uuid' },
    scope: { type: 'string', enum: ['mine', 'all'] },
  },
} as const satisfies RouteSchema;
