/**
 * Small JSON Schema pieces answer schemas share, written once: spread or place them in a
 * `RouteSchema`'s properties (`createdAt: DATE_TIME`).
 */

/** An ISO 8601 timestamp. */
export const DATE_TIME = { type: 'string', format: 'date-time' } as const;
/** An ISO 8601 timestamp or `null`. */
export const NULLABLE_DATE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;
/** A string or `null`. */
export const NULLABLE_STRING = { type: ['string', 'null'] } as const;
/** Who did it, on audit events and dead letters: `{ type, id }` (`account`, `apiKey`, `machine`, …). */
export const ACTOR = { type: 'object', additionalProperties: false, required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'string' } } } as const;
