import { NULLABLE_STRING, type RouteSchema } from '../../../core/index.ts';

/** `public-api/app-group-summaries.response`: the app groups of an owner's organization (possibly none). @see docs/api/public-v1.md */
export const appGroupSummariesResponse = {
  $id: 'public-api/app-group-summaries.response',
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['key', 'name', 'description'],
    properties: { key: { type: 'string', description: '`appgroup_…`' }, name: { type: 'string' }, description: NULLABLE_STRING },
  },
} as const satisfies RouteSchema;

/** `public-api/app-group.response`: one app group of the key's organization. @see docs/api/public-v1.md */
export const publicAppGroupResponse = {
  $id: 'public-api/app-group.response',
  type: 'object',
  additionalProperties: false,
  required: ['groupKey', 'id', 'orgId', 'name', 'description', 'iconUrl', 'brandColor'],
  properties: {
    groupKey: { type: 'string', description: '`appgroup_…`' },
    id: { type: 'string', format: 'uuid' },
    orgId: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    description: NULLABLE_STRING,
    iconUrl: NULLABLE_STRING,
    brandColor: NULLABLE_STRING,
  },
} as const satisfies RouteSchema;
