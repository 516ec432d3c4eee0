import type { RouteSchema } from '../../../core/index.ts';

const NAME = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' } as const;
const DESCRIPTION = { type: ['string', 'null'], maxLength: 1000 } as const;
const ICON_URL = { type: ['string', 'null'], maxLength: 500, format: 'uri', pattern: '^https://' } as const;
const BRAND_COLOR = { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' } as const;

/** JSON Schema `apps/create-app-group.body`. @see docs/api/apps.md */
export const createAppGroupBody = {
  $id: 'apps/create-app-group.body',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: NAME, description: DESCRIPTION, iconUrl: ICON_URL, brandColor: BRAND_COLOR, monetizationEnabled: { type: 'boolean' } },
} as const satisfies RouteSchema;

/** JSON Schema `apps/update-app-group.body`: only the members sent change; `null` clears. */
export const updateAppGroupBody = {
  $id: 'apps/update-app-group.body',
  type: 'object',
  additionalProperties: false,
  properties: { name: NAME, description: DESCRIPTION, iconUrl: ICON_URL, brandColor: BRAND_COLOR, monetizationEnabled: { type: 'boolean' } },
} as const satisfies RouteSchema;
