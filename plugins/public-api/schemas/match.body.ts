import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `public-api/match.body`. */
export const matchBody = {
  $id: 'public-api/match.body',
  type: 'object',
  additionalProperties: false,
  required: ['ownerEmail', 'orgName'],
  properties: {
    ownerEmail: { type: 'string', format: 'email', maxLength: 254 },
    orgName: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const satisfies RouteSchema;
