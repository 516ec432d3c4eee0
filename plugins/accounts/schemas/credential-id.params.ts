import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/credential-id.params`. */
export const credentialIdParams = {
  $id: 'accounts/credential-id.params',
  type: 'object',
  required: ['credentialId'],
  properties: { credentialId: { type: 'string', minLength: 1, maxLength: 1366, pattern: '^[A-Za-z0-9_-]+$' } },
} as const satisfies RouteSchema;
