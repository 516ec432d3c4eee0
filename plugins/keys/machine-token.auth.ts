import type { AuthScheme } from '../../core/index.ts';
import type { MachineTokensService } from './service-interfaces.ts';

const ORG_PATH = /^\/api\/org\/([^/]+)(?:\/|$)/;
const JWT_SHAPE = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/**
 * The `machineToken` auth scheme: `Authorization: Bearer <machine token>` on `/api/org/{slug}/*`,
 * and on routes that name the organization with an `orgSlug` query parameter instead (the audit
 * query) when they list the scheme.
 * Enforces that the token is a live RS256 machine token of `{slug}`'s organization (see
 * {@link MachineTokensService.authenticate}); the principal carries `orgId` and the token's
 * `scopes`, so the organization resolver accepts it only on its own organization and scope checks
 * use what the token holds. Other bearer values are left to other schemes.
 * @see docs/api/keys.md
 */
export function machineTokenAuthScheme(tokens: MachineTokensService): AuthScheme {
  return {
    name: 'machineToken',
    // Accepted on every organization route that is not person-only (docs/plugins.md).
    orgCredential: true,
    openapi: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "`Authorization: Bearer <accessToken>`: an RS256 machine token from `POST /api/m2m/token`, valid on its own organization's `/api/org/{slug}/…` routes within its scopes." },
    async authenticate(req) {
      const header = req.headers.authorization;
      const token = typeof header === 'string' ? JWT_SHAPE.exec(header)?.[1] : undefined;
      const named = req.query.orgSlug;
      const slug = ORG_PATH.exec(req.path)?.[1] ?? (typeof named === 'string' ? named : undefined);
      if (!token || !slug) return null;
      return tokens.authenticate(token, slug);
    },
  };
}
