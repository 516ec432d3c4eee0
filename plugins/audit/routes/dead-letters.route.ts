import { route, type AuditHealthService, type RouteDef } from '../../../core/index.ts';
import { deadLettersQuery } from '../schemas/dead-letters.query.ts';
import { deadLettersResponse } from '../schemas/responses.ts';

/**
 * `GET /api/v1/admin/audit/dead-letters` (session, platform administrators): the events the sealer
 * could never seal, oldest first, with the reason — `{ items: DeadLetter[], nextCursor }`; pass
 * `nextCursor` back as `after` for the next page. `limit` 1–200 (default 50), `orgId` narrows to
 * one organization. @see docs/api/audit.md "Dead letters"
 */
export function deadLettersRoute(auditHealth: AuditHealthService): RouteDef {
  return route({
    method: 'GET', path: '/api/v1/admin/audit/dead-letters', auth: 'session', platformAdmin: true, query: deadLettersQuery,
    response: deadLettersResponse,
    summary: 'Audit events the sealer could not seal (platform administrators)', tags: ['admin', 'audit'],
    handler: ({ query }) => auditHealth.deadLetters(query),
  });
}
