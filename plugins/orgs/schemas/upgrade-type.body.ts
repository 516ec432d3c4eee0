import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `orgs/upgrade-type.body`. */
export const upgradeTypeBody = {
  $id: 'orgs/upgrade-type.body',
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { enum: ['Standard', 'Corporation', 'Project'] },
    masterSeal: { type: 'boolean', description: 'Issue the Org Master Seal for a type other than Corporation.' },
  },
} as const satisfies RouteSchema;
