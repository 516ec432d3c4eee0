import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `orgs/set-plan.body`. */
export const setPlanBody = {
  $id: 'orgs/set-plan.body',
  type: 'object',
  additionalProperties: false,
  required: ['planKey'],
  properties: { planKey: { enum: ['Free', 'Pro', 'ProPlus', 'Business', 'Enterprise'] } },
} as const satisfies RouteSchema;

/** JSON Schema `orgs/platform-partner.body`. */
export const platformPartnerBody = {
  $id: 'orgs/platform-partner.body',
  type: 'object',
  additionalProperties: false,
  required: ['platformPartner'],
  properties: { platformPartner: { type: 'boolean' } },
} as const satisfies RouteSchema;
