import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `members/member-patch.body`. */
export const memberPatchBody = {
  $id: 'members/member-patch.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    Role: { enum: ['Admin', 'Member'] },
    Status: { const: 'active' },
    ReportingManagerId: { type: ['string', 'null'], format: 'uuid' },
    Title: { type: ['string', 'null'], maxLength: 100, format: 'display-name' },
    BoardChairman: { type: 'boolean' },
    BoardSharePercent: { type: ['number', 'null'], minimum: 0, maximum: 100, multipleOf: 0.0001 },
  },
} as const satisfies RouteSchema;
