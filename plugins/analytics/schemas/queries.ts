import type { RouteSchema } from '../../../core/index.ts';

const orgSlug = { type: 'string', minLength: 1, maxLength: 100 } as const;
/** Spec 01 names the organization by `orgId`; `orgSlug` is taken too (one of them, the same organization when both). */
const orgId = { type: 'string', format: 'uuid' } as const;
/** Any integer: the server clamps it to the window the route allows (no error). */
const days = { type: 'integer', minimum: -1_000_000, maximum: 1_000_000 } as const;
const appGroupId = { type: 'string', format: 'uuid' } as const;

/** JSON Schema `analytics/analytics.query`: `/analytics` and `/behavior/rollup`. */
export const analyticsQuery = {
  $id: 'analytics/analytics.query',
  type: 'object',
  additionalProperties: false,
  properties: { orgId, orgSlug, days, appGroupId },
} as const satisfies RouteSchema;

/** JSON Schema `analytics/rollup.query`: `/analytics/rollup`. */
export const rollupQuery = {
  $id: 'analytics/rollup.query',
  type: 'object',
  additionalProperties: false,
  properties: { orgId, orgSlug, days },
} as const satisfies RouteSchema;

/** JSON Schema `analytics/forensic.query`: `/stats/forensic`. */
export const forensicQuery = {
  $id: 'analytics/forensic.query',
  type: 'object',
  additionalProperties: false,
  required: ['appGroupId', 'email'],
  properties: {
    orgId, orgSlug, appGroupId,
    email: { type: 'string', minLength: 3, maxLength: 320 },
    days: { type: 'integer', minimum: 1, maximum: 366 },
    limit: { type: 'integer', minimum: 1, maximum: 500 },
  },
} as const satisfies RouteSchema;

/** JSON Schema `analytics/app-group.params`. */
export const appGroupParams = {
  $id: 'analytics/app-group.params',
  type: 'object',
  additionalProperties: false,
  required: ['appGroupId'],
  properties: { appGroupId },
} as const satisfies RouteSchema;

/** JSON Schema `analytics/event-collection.body`: `{orgSlug, enabled}`. */
export const eventCollectionBody = {
  $id: 'analytics/event-collection.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug', 'enabled'],
  properties: { orgSlug, enabled: { type: 'boolean' } },
} as const satisfies RouteSchema;
