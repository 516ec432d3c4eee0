import { route, type RouteDef } from '../../../core/index.ts';
import type { ApiKeyPrincipal, ApiKeysService, SigningKeysService } from '../../keys/api.ts';
import type { OrganizationDirectory } from '../organization-directory.ts';
import { publicApiErrors } from '../errors.ts';
import { meResponse } from '../schemas/responses.ts';

/**
 * `GET /api/public/v1/me`: the organization behind the key (`{id, name, slug, ready}`), its issuer
 * and JWKS address, and the calling key (never its value). App-group-scoped keys may call it.
 * @see docs/api/public-v1.md; the shape is ours (docs/api/public-v1.md)
 */
export function meRoutes(directory: OrganizationDirectory, apiKeys: ApiKeysService, signingKeys: SigningKeysService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/public/v1/me', auth: 'apiKey',
      response: meResponse,
      summary: 'The organization and key behind the API key', tags: ['public-v1'],
      handler: async ({ principal }) => {
        const p = principal as ApiKeyPrincipal;
        const [org, key] = await Promise.all([directory.byId(p.orgId), apiKeys.get(p.orgId, p.id)]);
        if (!org || !key) throw publicApiErrors.organizationNotFound();
        const issuer = signingKeys.issuer(org.slug);
        const { revokedAt: _revoked, ...keyView } = key;
        return { ...org, issuer, jwksUri: `${issuer}/.well-known/jwks.json`, key: keyView };
      },
    }),
  ];
}
