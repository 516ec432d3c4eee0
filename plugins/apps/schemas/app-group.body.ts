import type { RouteSchema } from '../../../core/index.ts';

const NAME = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S', format: 'display-name' } as const;
const DESCRIPTION = { type: ['string', 'null'], maxLength: 1000 } as const;
const ICON_URL = { type: ['string', 'null'], maxLength: 500, format: 'uri', pattern: '^https://' } as const;
const BRAND_COLOR = { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' } as const;
const HERO = (maxLength: number) => ({ type: ['string', 'null'], maxLength, format: 'display-name' }) as const;
const BRANDING = {
  type: 'object',
  additionalProperties: false,
  properties: {
    primaryColor: BRAND_COLOR,
    backgroundColor: BRAND_COLOR,
    heroTitle: HERO(80),
    heroSubtitle: HERO(200),
    passkeyEnabled: { type: 'boolean' },
    magicLinkEnabled: { type: 'boolean' },
    aerieAccountEnabled: { type: 'boolean' },
    socialProviders: { type: 'array', uniqueItems: true, maxItems: 4, items: { enum: ['google', 'github', 'apple', 'microsoft'] } },
  },
} as const;
// The RP ID rules beyond its form are the service's (400 RP_ID_INVALID).
const PASSKEY_RP_ID = { type: ['string', 'null'], minLength: 1, maxLength: 253, pattern: '^[a-z0-9.-]+$' } as const;
const SERVICE_MODEL = { enum: ['SaaS', 'PaaS', null] } as const;
const FIELD = { type: ['string', 'null'], minLength: 1, maxLength: 100, pattern: '\\S', format: 'display-name' } as const;
/** The schemas of an app group's name, description, icon URL and brand colour, for other plugins' bodies. */
export const appGroupBasics = { name: NAME, description: DESCRIPTION, iconUrl: ICON_URL, brandColor: BRAND_COLOR } as const;

const MEMBERS = {
  name: NAME, description: DESCRIPTION, iconUrl: ICON_URL, brandColor: BRAND_COLOR, monetizationEnabled: { type: 'boolean' },
  branding: BRANDING, passkeyRpId: PASSKEY_RP_ID, serviceModel: SERVICE_MODEL, field: FIELD,
} as const;

/** JSON Schema `apps/create-app-group.body`. @see docs/api/apps.md */
export const createAppGroupBody = {
  $id: 'apps/create-app-group.body',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: MEMBERS,
} as const satisfies RouteSchema;

/** JSON Schema `apps/update-app-group.body`: only the members sent change; `null` clears. */
export const updateAppGroupBody = {
  $id: 'apps/update-app-group.body',
  type: 'object',
  additionalProperties: false,
  properties: MEMBERS,
} as const satisfies RouteSchema;
