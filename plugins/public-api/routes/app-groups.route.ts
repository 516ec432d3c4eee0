import { route, type RouteDef } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';
import type { AppGroupsService } from '../../apps/api.ts';
import type { OrganizationDirectory } from '../organization-directory.ts';
import { publicApiErrors } from '../errors.ts';
import { byKeyBody } from '../schemas/by-key.body.ts';
import { matchBody } from '../schemas/match.body.ts';
import { appGroupSummariesResponse, publicAppGroupResponse } from '../schemas/app-groups.responses.ts';

/**
 * App groups on the public API (organization-wide keys only; app-group-scoped keys get 401), always
 * within the key's own organization: `POST /orgs/app-groups` (the groups of the organization an
 * email owns under a name, `[]` when that is not the key's organization) and `POST /app-groups/by-key`
 * (404 when absent or another organization's).
 * @see docs/api/public-v1.md
 */
export function appGroupRoutes(directory: OrganizationDirectory, groups: AppGroupsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/v1/orgs/app-groups', auth: 'apiKey', body: matchBody,
      response: appGroupSummariesResponse,
      summary: "The app groups of the key's organization, when that email owns it under that name", tags: ['public-v1'],
      handler: async ({ principal, body }) => {
        requireOrganizationWideKey(principal);
        const org = await directory.match(body.ownerEmail, body.orgName);
        if (!org || org.id !== (principal as ApiKeyPrincipal).orgId) return [];
        return (await groups.list(org.id)).map((g) => ({ key: g.publicKey, name: g.name, description: g.description }));
      },
    }),
    route({
      method: 'POST', path: '/api/public/v1/app-groups/by-key', auth: 'apiKey', body: byKeyBody,
      response: publicAppGroupResponse,
      summary: "An app group of the key's organization by its public key", tags: ['public-v1'],
      handler: async ({ principal, body }) => {
        requireOrganizationWideKey(principal);
        const orgId = (principal as ApiKeyPrincipal).orgId;
        const g = await groups.findByPublicKey(orgId, body.groupKey);
        if (!g) throw publicApiErrors.appGroupNotFound();
        return { groupKey: g.publicKey, id: g.id, orgId, name: g.name, description: g.description, iconUrl: g.iconUrl, brandColor: g.brandColor };
      },
    }),
  ];
}
