import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `rbac/roles-list.query`. */
export const rolesListQuery = { $id: 'rbac/roles-list.query', type: 'object', properties: { includeInactive: { type: 'boolean' } } } as const satisfies RouteSchema;
