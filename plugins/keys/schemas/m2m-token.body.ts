import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `keys/m2m-token.body`. */
export const m2mTokenBody = {
  $id: 'keys/m2m-token.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug', 'apiKey'],
  properties: {
    orgSlug: { type: 'string', minLength: 1, maxLength: 39 },
    apiKey: { type: 'string', minLength: 1, maxLength: 256 },
    scope: {
      anyOf: [
        { type: 'string', maxLength: 8192 },
        { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } },
      ],
    },
    lifetimeSeconds: { type: 'integer', minimum: 1 },
  },
} as const satisfies RouteSchema;
