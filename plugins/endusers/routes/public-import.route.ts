import { route, type RouteDef } from '../../../core/index.ts';
import { requireOrganizationWideKey, type ApiKeyPrincipal } from '../../keys/api.ts';
import type { EndUserImportsService } from '../service-interfaces.ts';
import { publicImportBody } from '../schemas/bodies.ts';
import { importResponse } from '../schemas/responses.ts';

/**
 * `POST /api/public/v1/end-users/import` (`X-Api-Key`, organization-wide keys only: app-group-scoped
 * keys get 401): the bulk import of the key's organization, with a `source`, optional invites and
 * dormant password hashes.
 * @see docs/api/public-v1.md, docs/api/endusers.md "Bulk import"
 */
export function publicImportRoutes(imports: EndUserImportsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/public/v1/end-users/import', auth: 'apiKey', body: publicImportBody,
      response: importResponse, summary: 'Import up to 500 end users into an app group, each row answered on its own', tags: ['public-v1'],
      handler: async ({ principal, body }) => {
        requireOrganizationWideKey(principal);
        return { results: await imports.import((principal as ApiKeyPrincipal).orgId, body) };
      },
    }),
  ];
}
