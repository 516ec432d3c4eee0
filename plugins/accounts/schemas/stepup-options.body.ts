import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/stepup-options.body`. */
export const stepupOptionsBody = {
  $id: 'accounts/stepup-options.body',
  type: 'object',
  additionalProperties: false,
  required: ['purpose', 'subject'],
  properties: {
    purpose: { type: 'string', minLength: 1, maxLength: 64 },
    subject: { type: 'string', minLength: 1, maxLength: 16384 },
    inputs: {
      type: 'array',
      maxItems: 16,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value'],
        properties: { key: { type: 'string', maxLength: 64 }, value: { type: 'string', maxLength: 16384 } },
      },
    },
  },
} as const satisfies RouteSchema;
