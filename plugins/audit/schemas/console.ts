import { DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/**
 * Schemas of the console figures: `GET /sessions`, `POST /heartbeat`, `GET /stats`,
 * `GET /stats/quick` (docs/api/audit.md "Console figures").
 */

const ORG_SLUG = { type: 'string', minLength: 1, maxLength: 100 } as const;
const DAY = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

/** `audit/sessions.query`: `orgSlug`, `page` (from 1), `pageSize` 1–100. */
export const sessionsQuery = {
  $id: 'audit/sessions.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: ORG_SLUG, page: { type: 'integer', minimum: 1, maximum: 100_000 }, pageSize: { type: 'integer', minimum: 1, maximum: 100 } },
} as const satisfies RouteSchema;

/** Shared schema `audit/MemberSession`: one live console session of a member (never a token or hash). */
export const memberSession = {
  $id: 'audit/MemberSession',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'accountId', 'email', 'displayName', 'createdAt', 'lastSeenAt', 'expiresAt', 'absoluteExpiresAt', 'userAgent', 'ip', 'current'],
  properties: {
    id: { type: 'string' }, accountId: { type: 'string' }, email: { type: 'string' }, displayName: NULLABLE_STRING,
    createdAt: DATE_TIME, lastSeenAt: DATE_TIME, expiresAt: DATE_TIME, absoluteExpiresAt: DATE_TIME,
    userAgent: NULLABLE_STRING, ip: NULLABLE_STRING, current: { type: 'boolean' },
  },
} as const satisfies RouteSchema;

/** `audit/sessions.response`: a page of sessions, most recently seen first. */
export const sessionsResponse = {
  $id: 'audit/sessions.response',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'page', 'pageSize', 'total'],
  properties: { items: { type: 'array', items: schemaRef(memberSession) }, page: { type: 'integer' }, pageSize: { type: 'integer' }, total: COUNT },
} as const satisfies RouteSchema;

/** `audit/heartbeat.body`: `{ orgSlug }`. */
export const heartbeatBody = {
  $id: 'audit/heartbeat.body',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: ORG_SLUG },
} as const satisfies RouteSchema;

/** `audit/heartbeat.response`: what the beat credited and the member's own total today. */
export const heartbeatResponse = {
  $id: 'audit/heartbeat.response',
  type: 'object',
  additionalProperties: false,
  required: ['day', 'creditedSeconds', 'activeSecondsToday', 'nextBeatSeconds'],
  properties: { day: DAY, creditedSeconds: COUNT, activeSecondsToday: COUNT, nextBeatSeconds: { type: 'integer' } },
} as const satisfies RouteSchema;

/** `audit/stats.query`: `orgSlug`, `days` 1–90 (default 7). */
export const statsQuery = {
  $id: 'audit/stats.query',
  type: 'object',
  additionalProperties: false,
  required: ['orgSlug'],
  properties: { orgSlug: ORG_SLUG, days: { type: 'integer', minimum: 1, maximum: 90 } },
} as const satisfies RouteSchema;

const NAMED_MEMBER = {
  type: 'object', additionalProperties: false, required: ['accountId', 'email', 'displayName'],
  properties: { accountId: { type: 'string' }, email: { type: 'string' }, displayName: NULLABLE_STRING },
} as const;

/** `audit/stats.response`: dashboard figures over a window of UTC days. */
export const statsResponse = {
  $id: 'audit/stats.response',
  type: 'object',
  additionalProperties: false,
  required: ['window', 'paymentEventsIncluded', 'totals', 'daily', 'topEventTypes', 'topActors', 'members'],
  properties: {
    window: {
      type: 'object', additionalProperties: false, required: ['from', 'to', 'days', 'requestedDays', 'retentionDays', 'clamped'],
      properties: { from: DATE_TIME, to: DATE_TIME, days: { type: 'integer' }, requestedDays: { type: 'integer' }, retentionDays: { type: ['integer', 'null'] }, clamped: { type: 'boolean' } },
    },
    paymentEventsIncluded: { type: 'boolean' },
    totals: { type: 'object', additionalProperties: false, required: ['events', 'eventTypes', 'actors'], properties: { events: COUNT, eventTypes: COUNT, actors: COUNT } },
    daily: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['date', 'events'], properties: { date: DAY, events: COUNT } } },
    topEventTypes: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['eventType', 'count'], properties: { eventType: { type: 'string' }, count: COUNT } } },
    topActors: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['type', 'id', 'count', 'member'],
        properties: { type: { type: 'string' }, id: { type: 'string' }, count: COUNT, member: { oneOf: [NAMED_MEMBER, { type: 'null' }] } },
      },
    },
    members: {
      type: 'object', additionalProperties: false, required: ['total', 'active', 'activeSecondsTotal', 'activeTime'],
      properties: {
        total: COUNT, active: COUNT, activeSecondsTotal: COUNT,
        activeTime: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: [...NAMED_MEMBER.required, 'activeSeconds'], properties: { ...NAMED_MEMBER.properties, activeSeconds: COUNT } },
        },
      },
    },
  },
} as const satisfies RouteSchema;

/** `audit/stats-quick.response`: header-badge figures. */
export const quickStatsResponse = {
  $id: 'audit/stats-quick.response',
  type: 'object',
  additionalProperties: false,
  required: ['at', 'today', 'paymentEventsIncluded', 'eventsToday', 'eventsLast24h', 'membersTotal', 'membersActiveToday', 'chainHead', 'unsealedEvents', 'unsealedCapped'],
  properties: {
    at: DATE_TIME, today: DAY, paymentEventsIncluded: { type: 'boolean' }, eventsToday: COUNT, eventsLast24h: COUNT, membersTotal: COUNT, membersActiveToday: COUNT,
    chainHead: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['seq', 'chainHash', 'sealedAt'], properties: { seq: { type: 'integer' }, chainHash: { type: 'string' }, sealedAt: DATE_TIME } },
        { type: 'null' },
      ],
    },
    unsealedEvents: COUNT, unsealedCapped: { type: 'boolean' },
  },
} as const satisfies RouteSchema;
