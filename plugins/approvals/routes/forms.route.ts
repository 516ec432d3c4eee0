import { route, type OrgContext, type RouteDef } from '../../../core/index.ts';
import { approvalsErrors } from '../errors.ts';
import type { FormsService } from '../forms.service.ts';
import type { InstancesService } from '../instances.service.ts';
import { approvalLineBody, createFormBody } from '../schemas/bodies.ts';
import { slugParams, workItemParams } from '../schemas/params.ts';
import { approvalLineResponse, form, formsResponse, resolveLineResponse } from '../schemas/responses.ts';

const PERSON_ONLY = 'approval forms and lines are read and changed by members of the organization; a machine token is no member';

/** "Owner or Admin only" (spec 02 "Approvals"). */
export function assertOwnerOrAdmin(org: OrgContext): void {
  if (org.membership?.role !== 'Owner' && org.membership?.role !== 'Admin') throw approvalsErrors.ownerOrAdmin();
}

/**
 * Forms (work items) and their approval lines: `POST|GET /api/org/{slug}/approvals/work-items`,
 * `GET …/work-items/{id}`, `GET|PUT …/work-items/{id}/approval-line` (Owner or Admin; PUT replaces
 * every position and emits `reporting.approvalline.changed`), `GET …/work-items/{id}/resolve-line`
 * (the caller's preview with the approver count).
 * @see docs/api/approvals.md "Forms", "Approval lines", "Resolving a line"
 */
export function formRoutes(forms: FormsService, instances: InstancesService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, personOnly: PERSON_ONLY, tags: ['approvals'] };
  return [
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/approvals/work-items', params: slugParams, body: createFormBody, status: 201,
      response: { 201: form }, summary: 'Create a form (Owner or Admin)',
      guard: ({ org }) => assertOwnerOrAdmin(org),
      handler: ({ org, principal, body }) => forms.create(org.organization.id, principal.accountId, body),
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/work-items', params: slugParams, response: formsResponse, summary: 'List forms',
      handler: async ({ org }) => ({ workItems: await forms.list(org.organization.id) }),
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/work-items/{id}', params: workItemParams, response: form, summary: 'One form',
      handler: ({ org, params }) => forms.get(org.organization.id, params.id),
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/work-items/{id}/approval-line', params: workItemParams, response: approvalLineResponse,
      summary: "A form's approval line (Owner or Admin)",
      guard: ({ org }) => assertOwnerOrAdmin(org),
      handler: async ({ org, params }) => ({ workItemId: params.id, positions: await forms.line(org.organization.id, params.id) }),
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/approvals/work-items/{id}/approval-line', params: workItemParams, body: approvalLineBody,
      response: approvalLineResponse, summary: "Replace a form's approval line (Owner or Admin)",
      guard: ({ org }) => assertOwnerOrAdmin(org),
      handler: async ({ org, params, body }) => ({ workItemId: params.id, positions: await forms.replaceLine(org.organization.id, params.id, body.positions) }),
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/work-items/{id}/resolve-line', params: workItemParams, response: resolveLineResponse,
      summary: "Preview the caller's line on a form, with the approver count",
      handler: ({ org, params }) => instances.preview(org.organization.id, params.id, org.membership.id),
    }),
  ];
}
