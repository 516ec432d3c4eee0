import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `roost/rearm-ticket.body`. */
export const rearmTicketBody = {
  $id: 'roost/rearm-ticket.body',
  type: 'object',
  additionalProperties: false,
  properties: { box: {}, nonce: {}, stepUpAssertion: { type: ['string', 'object'] } },
} as const satisfies RouteSchema;
