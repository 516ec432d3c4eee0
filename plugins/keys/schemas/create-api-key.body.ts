import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `keys/create-api-key.body`. */
export const createApiKeyBody = {
  $id: 'keys/create-api-key.body',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' },
    appGroupId: { type: 'string', minLength: 1, maxLength: 100 },
    scopes: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 256 } },
    maxTokenLifetimeSeconds: { type: 'integer', minimum: 60, maximum: 604800 },
    serviceAccountId: { type: 'string', minLength: 1, maxLength: 100 },
    assertionResponseJson: { anyOf: [{ type: 'string', maxLength: 65536 }, { type: 'object' }] },
  },
} as const satisfies RouteSchema;
