import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `audit/log-id.params`. */
export const logIdParams = {
  $id: 'audit/log-id.params',
  type: 'object',
  additionalProperties: false,
  required: ['logId'],
  properties: { logId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const satisfies RouteSchema;
