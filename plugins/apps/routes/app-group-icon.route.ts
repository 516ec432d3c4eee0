import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { AppGroupIconsService } from '../app-group-icons.service.ts';
import { appsErrors } from '../errors.ts';
import { ICON_MAX_BYTES } from '../icon-image.ts';
import { groupIdParams, groupKeyParams } from '../schemas/params.ts';
import { appGroup } from '../schemas/responses.ts';

/** An icon is shown inside other pages; served directly it may not run or fetch anything. */
const ICON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'cross-origin-resource-policy': 'cross-origin',
  'cache-control': 'public, max-age=300',
};

/**
 * App-group icons: upload (the request body is the image's bytes, at most 2 MiB) and delete under
 * `/api/org/{slug}/app-groups/{groupId}/icon`, and the public `GET /api/public/app-groups/{groupKey}/icon`
 * that `iconUrl` points at.
 * @see docs/api/apps.md "Icon"
 */
export function appGroupIconRoutes(icons: AppGroupIconsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/app-groups/{groupId}/icon', auth: 'session', org: true, scope: 'org.app_group.update', params: groupIdParams,
      rawBody: { maxBytes: ICON_MAX_BYTES }, response: appGroup,
      summary: "Upload the group's icon: the body is a PNG, JPEG, WebP or SVG image (type read from the bytes, SVG cleaned)", tags: ['apps'],
      handler: async ({ org, params, rawBody }) => icons.upload(org.organization.id, params.groupId, rawBody),
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/app-groups/{groupId}/icon', auth: 'session', org: true, scope: 'org.app_group.update', params: groupIdParams,
      response: appGroup, summary: "Delete the group's icon and clear iconUrl", tags: ['apps'],
      handler: async ({ org, params }) => icons.remove(org.organization.id, params.groupId),
    }),
    route({
      method: 'GET', path: '/api/public/app-groups/{groupKey}/icon', auth: 'public', params: groupKeyParams,
      response: { contentType: 'image/*', description: 'The icon as uploaded (PNG, JPEG, WebP) or cleaned (SVG), with its detected type' },
      summary: "An app group's uploaded icon", tags: ['apps'],
      handler: async ({ params }) => {
        const icon = await icons.read(params.groupKey);
        if (!icon) throw appsErrors.iconNotFound();
        return reply(200, icon.body, { ...ICON_HEADERS, 'content-type': icon.contentType, 'content-length': String(icon.size) });
      },
    }),
  ];
}
