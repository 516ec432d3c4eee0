import { hasBadText, type AuthScheme } from '../../core/index.ts';
import type { OrganizationsService } from '../orgs/api.ts';
import type { ScimTokensService } from './tokens.service.ts';

const SCIM_PATH = /^\/scim\/v2\/([^/]+)(?:\/|$)/;

/**
 * `scimToken`: `Authorization: Bearer scim_…` on `/scim/v2/{slug}/…` only, and only for the
 * token's own organization — another organization's path is 401, like a wrong token.
 * @see docs/api/scim.md "Authentication"
 */
export function scimTokenAuthScheme(tokens: ScimTokensService, organizations: OrganizationsService): AuthScheme {
  return {
    name: 'scimToken',
    openapi: { type: 'http', scheme: 'bearer', description: "`Authorization: Bearer scim_…`: a SCIM token of the organization named in the path (`/scim/v2/{slug}/…`)." },
    async authenticate(req) {
      const header = req.headers.authorization;
      const value = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
      const slug = SCIM_PATH.exec(req.path)?.[1];
      if (!value?.startsWith('scim_') || !slug) return null;
      const token = await tokens.verify(value);
      if (!token) return null;
      // The raw path, read before the kernel checks parameters: a slug that does not decode, or holds
      // NUL or a lone surrogate, names no organization (401, as another organization's path is).
      const name = decodedSlug(slug);
      if (name === null) return null;
      const org = await organizations.findBySlug(name);
      if (!org || org.id !== token.orgId) return null;
      return { type: 'scimToken', id: token.id, orgId: token.orgId };
    },
  };
}

/** `slug` percent-decoded, or null when it is not UTF-8 or holds text no slug can. */
function decodedSlug(slug: string): string | null {
  try {
    const name = decodeURIComponent(slug);
    return hasBadText(name) ? null : name;
  } catch {
    return null;
  }
}
