import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/seal-bind.body`. */
export const sealBindBody = {
  $id: 'accounts/seal-bind.body',
  type: 'object',
  additionalProperties: false,
  required: ['credentialId'],
  properties: { credentialId: { type: 'string', minLength: 1, maxLength: 1366, pattern: '^[A-Za-z0-9_-]+$' } },
} as const satisfies RouteSchema;
