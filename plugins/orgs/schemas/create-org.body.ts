import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `orgs/create-org.body`. */
export const createOrgBody = {
  $id: 'orgs/create-org.body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'slug'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' },
    slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{1,38}$' },
    type: { enum: ['Standard', 'Corporation', 'Project'], default: 'Standard' },
  },
} as const satisfies RouteSchema;
