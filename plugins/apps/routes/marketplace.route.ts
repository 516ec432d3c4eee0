import { permissionDenied, reply, route, type RouteDef, type RouteSchema } from '../../../core/index.ts';
import { groupKeyParams } from '../schemas/params.ts';
import type { MarketplaceService } from '../service-interfaces.ts';

/** The seal that installing an app group needs: the Owner's or an Admin's passkey over `{slug}|{groupKey}`. */
export const INSTALL_SEAL_PURPOSE = 'integration.enable';

const installPath = {
  $id: 'apps/install.params', type: 'object', required: ['slug', 'groupKey'],
  properties: { slug: { type: 'string', maxLength: 39 }, groupKey: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;
const listingBody = {
  $id: 'apps/listing.body', type: 'object', additionalProperties: false, required: ['listed'], properties: { listed: { type: 'boolean' } },
} as const satisfies RouteSchema;
const installBody = {
  $id: 'apps/install.body', type: 'object', additionalProperties: false,
  properties: { SealAssertionJson: { description: 'The passkey assertion of the seal (purpose `integration.enable`, subject `{slug}|{groupKey}`).' } },
} as const satisfies RouteSchema;
const listingResponse = {
  $id: 'apps/listing.response', type: 'object', additionalProperties: false, required: ['groupKey', 'listed', 'listedAt'],
  properties: { groupKey: { type: 'string' }, listed: { type: 'boolean' }, listedAt: { type: ['string', 'null'], format: 'date-time' } },
} as const satisfies RouteSchema;
const installResponse = {
  $id: 'apps/install.response', type: 'object', additionalProperties: false, required: ['appGroupId', 'groupKey', 'installedAt'],
  properties: { appGroupId: { type: 'string' }, groupKey: { type: 'string' }, installedAt: { type: 'string', format: 'date-time' } },
} as const satisfies RouteSchema;

/**
 * The marketplace's first routes: a platform administrator lists or delists an app group, and an
 * organization's Owner or Admin installs a listed one (sealed; person-only).
 * @see docs/api/apps.md "Marketplace listing and installations"
 */
export function marketplaceRoutes(marketplace: MarketplaceService): RouteDef[] {
  return [
    route({
      method: 'PUT', path: '/api/v1/admin/app-groups/{groupKey}/listing', auth: 'session', platformAdmin: true, params: groupKeyParams, body: listingBody,
      response: listingResponse, summary: 'List or delist an app group on the marketplace (platform administrators)', tags: ['apps'],
      handler: ({ params, body, principal }) => marketplace.setListing(params.groupKey, body.listed, principal.accountId),
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/integrations/app:{groupKey}/enable', auth: 'session', org: true, scope: 'org.integration.enable',
      personOnly: "an Owner's or Admin's decision, sealed with their passkey", params: installPath, body: installBody, status: 201,
      response: { 201: installResponse, 200: installResponse }, summary: 'Install a marketplace app group into this organization (sealed)', tags: ['apps'],
      guard: ({ org }) => {
        if (org.membership?.role !== 'Owner' && org.membership?.role !== 'Admin') throw permissionDenied('org.integration.enable', 'Only the Owner or an Admin installs an app group.');
      },
      seal: { purpose: INSTALL_SEAL_PURPOSE, subject: (i) => `${i.org.organization.slug}|${i.params.groupKey}`, assertionField: 'SealAssertionJson' },
      handler: async ({ org, params, principal }) => {
        const done = await marketplace.install(org.organization.id, params.groupKey, principal.accountId ?? null);
        return reply(done.created ? 201 : 200, { appGroupId: done.appGroupId, groupKey: params.groupKey, installedAt: done.installedAt });
      },
    }),
  ];
}
