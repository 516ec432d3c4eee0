import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `endusers/list.query`. @see docs/api/endusers.md "List" */
export const listQuery = {
  $id: 'endusers/list.query',
  type: 'object',
  additionalProperties: false,
  required: ['page', 'pageSize'],
  properties: {
    page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    search: { type: 'string', minLength: 1, maxLength: 254 },
    status: { enum: ['Pending', 'Active', 'Suspended'] },
    appGroupId: { type: 'string', format: 'uuid' },
  },
} as const satisfies RouteSchema;
