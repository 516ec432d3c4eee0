import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { AuditQueryService } from '../api.ts';
import { auditJwksResponse } from '../schemas/responses.ts';

/**
 * `GET /api/public/audit/.well-known/jwks.json` (public): the platform audit JWKS that verifies
 * checkpoints (`aerie audit verify-file --jwks <this url>`), retired keys included.
 * @see docs/audit.md; docs/audit.md "Checkpoints"
 */
export function jwksRoute(auditQuery: AuditQueryService): RouteDef {
  return route({
    method: 'GET', path: '/api/public/audit/.well-known/jwks.json', auth: 'public', summary: 'Platform audit JWKS (checkpoint keys)', tags: ['audit'],
    response: auditJwksResponse,
    handler: async () => reply(200, await auditQuery.jwks(), { 'cache-control': 'public, max-age=300' }),
  });
}
