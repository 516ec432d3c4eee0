import { reply, route, type RouteDef } from '../../../core/index.ts';
import type { FormsService } from '../forms.service.ts';
import type { InstancesService } from '../instances.service.ts';
import type { StampsService } from '../stamps.service.ts';
import { stampSubject, submitSubject } from '../stamp-binding.ts';
import { stampBody, submitBody } from '../schemas/bodies.ts';
import { documentNumberParams, instanceParams, slugParams } from '../schemas/params.ts';
import { awaitingSecondDeviceResponse, instance, instancesResponse, stampResponse } from '../schemas/responses.ts';

/** Seal purpose of approval submits and stamps. @see docs/api/approvals.md */
export const APPROVAL_SEAL_PURPOSE = 'approval.stamp';

const PERSON_ONLY = "approval documents are submitted and stamped with the member's own passkey (approval.stamp) and listed for that member; a machine token has neither";

/**
 * Approval instances: `GET|POST /api/org/{slug}/approvals/instances` (the caller's documents /
 * submit, sealed on `{slug}|{workItemId}|submit`), `POST …/instances/{id}/stamp` (sealed,
 * content-bound, on `{instanceId}|approve|reject`; 202 `awaiting_second_device` when rule 7 requires it), `GET …/instances/by-number/{documentNumber}`.
 * Cheap checks run as guards, before a seal is asked for or spent.
 * @see docs/api/approvals.md "Instances", "Stamping"
 */
export function instanceRoutes(forms: FormsService, instances: InstancesService, stamps: StampsService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, personOnly: PERSON_ONLY, tags: ['approvals'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/instances', params: slugParams, response: instancesResponse,
      summary: "The caller's documents: requested, to stamp, or received",
      handler: async ({ org }) => ({ Instances: await instances.list(org.organization.id, org.membership.id) }),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/approvals/instances', params: slugParams, body: submitBody, status: 201,
      response: { 201: instance }, summary: 'Submit a document (sealed)',
      guard: async ({ org, body }) => { await forms.row(org.organization.id, body.WorkItemId, undefined, 'WorkItemId'); },
      seal: { purpose: APPROVAL_SEAL_PURPOSE, subject: ({ org, body }) => submitSubject(org.organization.slug, body.WorkItemId), assertionField: 'SealAssertionJson' },
      handler: async ({ org, principal, body }) => reply(201, await instances.submit(
        org.organization, { connectedId: org.membership.id, accountId: principal.accountId, kind: principal.type === 'account' ? 'human' : 'agent' }, body,
      )),
    }),
    route({
      ...common, method: 'POST', path: '/api/org/{slug}/approvals/instances/{id}/stamp', params: instanceParams, body: stampBody,
      response: { 200: stampResponse, 202: awaitingSecondDeviceResponse }, summary: 'Approve or reject (sealed, bound to the content; may await a second device)',
      guard: async ({ org, params, principal }) => {
        await stamps.assertStampable(org.organization.id, params.id, org.membership.id);
        await stamps.assertSecondDeviceReady(org.organization.id, principal.accountId);
      },
      seal: {
        purpose: APPROVAL_SEAL_PURPOSE, subject: ({ params }) => stampSubject(params.id), assertionField: 'SealAssertionJson',
        inputs: ({ body }) => ({ 'input.reason': body.Reason ?? '' }),
      },
      handler: async ({ org, principal, params, body, seal }) => {
        const outcome = await stamps.stamp(org.organization, params.id, { id: org.membership.id, accountId: principal.accountId }, body, seal!);
        return outcome.recorded ? outcome.instance : reply(202, outcome.body);
      },
    }),
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/approvals/instances/by-number/{documentNumber}', params: documentNumberParams, response: instance,
      summary: 'Look up a document by its number',
      handler: ({ org, params }) => instances.byNumber(org.organization.id, params.documentNumber, org.membership),
    }),
  ];
}
