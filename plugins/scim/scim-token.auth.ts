import { hasBadText, type AuthScheme } from '../../core/index.ts';
import type { OrganizationsService } from '../orgs/api.ts';
import { scimErrors } from './errors.ts';
import type { ScimTokensService } from './tokens.service.ts';

const SCIM_PATH = /^\/scim\/v2\/([^/]+)(?:\/|$)/;

const REFUSED = 'A SCIM token of the organization in the path is required: Authorization: Bearer scim_….';

/**
 * `scimToken`: `Authorization: Bearer scim_…` on `/scim/v2/{slug}/…` only, and only for the
 * token's own organization — another organization's path is 401, like a wrong token. On a SCIM
 * path every refusal (no token, an unknown, revoked or other organization's token, a session) is
 * thrown as the SCIM 401 body (`scimErrors.unauthorized`), so SCIM clients parse it.
 * @see docs/api/scim.md "Authentication"
 */
export function scimTokenAuthScheme(tokens: ScimTokensService, organizations: OrganizationsService): AuthScheme {
  return {
    name: 'scimToken',
    // SCIM routes take the SCIM token alone: a machine token is never offered there.
    dedicated: true,
    openapi: { type: 'http', scheme: 'bearer', description: "`Authorization: Bearer scim_…`: a SCIM token of the organization named in the path (`/scim/v2/{slug}/…`)." },
    async authenticate(req) {
      const slug = SCIM_PATH.exec(req.path)?.[1];
      if (!slug) return null;
      const header = req.headers.authorization;
      const value = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
      const token = value?.startsWith('scim_') ? await tokens.verify(value) : undefined;
      if (!token) throw scimErrors.unauthorized(REFUSED);
      // The raw path, read before the kernel checks parameters: a slug that does not decode, or holds
      // NUL or a lone surrogate, names no organization (401, as another organization's path is).
      const name = decodedSlug(slug);
      const org = name === null ? undefined : await organizations.findBySlug(name);
      if (!org || org.id !== token.orgId) throw scimErrors.unauthorized(REFUSED);
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
