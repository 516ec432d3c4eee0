import { route, type RouteDef } from '../../../core/index.ts';
import type { AssignmentsService } from '../service-interfaces.ts';
import { orgParams } from '../schemas/org.params.ts';
import { sodReportResponse } from '../schemas/responses.ts';

/**
 * `GET /api/org/{slug}/roles/sod-report`: plain members (active or suspended) currently holding
 * both halves of a forbidden pair, as `{isValid, conflicts[]}`. Each run is a scan: one
 * `auth.sod.conflict_detected` is sealed per finding.
 * @see docs/api/roles.md, docs/audit.md
 */
export function sodReportRoutes(assignments: AssignmentsService): RouteDef[] {
  return [
    route({
      method: 'GET', path: '/api/org/{slug}/roles/sod-report', auth: 'session', org: true, scope: 'org.sod_report.read', params: orgParams,
      response: sodReportResponse,
      summary: 'Separation-of-duties report', tags: ['roles'],
      handler: async ({ org }) => {
        const findings = await assignments.sodFindings(org.organization.id);
        await assignments.recordFindings(org.organization.id, findings);
        return {
          isValid: findings.length === 0,
          conflicts: findings.map((f) => ({ connectedIdId: f.connectedIdId, accountId: f.accountId, a: f.conflict.a, b: f.conflict.b })),
        };
      },
    }),
  ];
}
