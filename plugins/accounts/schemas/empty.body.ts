import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `accounts/empty.body`. */
export const emptyBody = { $id: 'accounts/empty.body', type: 'object', additionalProperties: false, properties: {} } as const satisfies RouteSchema;
