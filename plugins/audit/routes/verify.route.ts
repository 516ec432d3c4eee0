import { notFound, route, type RouteDef } from '../../../core/index.ts';
import type { OrganizationsService } from '../../orgs/api.ts';
import type { AuditQueryService } from '../api.ts';
import { logIdParams } from '../schemas/log-id.params.ts';
import { verifyResponse } from '../schemas/responses.ts';

/**
 * `GET /api/v1/admin/audit/verify/{logId}` (session): Owner/Admin of the record's organization
 * only (404 otherwise, and for `payment.*` unless Owner), answers `AuditQueryService.verifyRecord`'s
 * shape: payloadHash, chainHash, the link to the previous record and the nearest checkpoint.
 * @see docs/api/audit.md "Verify one record"
 */
export function verifyRoute(auditQuery: AuditQueryService, organizations: OrganizationsService): RouteDef {
  return route({
    method: 'GET', path: '/api/v1/admin/audit/verify/{logId}', auth: 'session', params: logIdParams,
    response: verifyResponse,
    summary: 'Verify one sealed audit record (hashes, link, checkpoint)', tags: ['audit'],
    handler: async ({ params, principal }) => {
      const record = await auditQuery.record(params.logId);
      if (!record) throw notFound();
      const org = await organizations.findById(record.orgId);
      const ctx = org ? await organizations.resolveContext(org.slug, principal) : null;
      const role = ctx?.membership?.role;
      if (role !== 'Owner' && role !== 'Admin') throw notFound();
      if (record.eventType.startsWith('payment.') && role !== 'Owner') throw notFound();
      return auditQuery.verifyRecord(record);
    },
  });
}
