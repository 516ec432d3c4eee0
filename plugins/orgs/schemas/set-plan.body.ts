import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `orgs/set-plan.body`. */
export const setPlanBody = {
  $id: 'orgs/set-plan.body',
  type: 'object',
  additionalProperties: false,
  required: ['planKey'],
  properties: { planKey: { enum: ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] } },
} as const satisfies RouteSchema;
