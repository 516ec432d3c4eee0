import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AerieConfig, type AuditService, type Clock, type Database, type Mailer } from '../../core/index.ts';
import type { Logger } from 'pino';
import { rbacRefs, type AssignmentsService } from '../rbac/api.ts';
import { approvalsExtensions, type AttachmentStore } from './api.ts';
import { approvalMail } from './approval-mail.ts';
import { approvalsErrors } from './errors.ts';
import { FormsService } from './forms.service.ts';
import { renderInstances, type InstanceDto } from './instance-view.ts';
import { LineResolver, routingOf, type RequesterKind, type ResolvedLine } from './line-resolver.ts';
import { nextDocumentNumber } from './numbering.ts';
import { peopleOf, type Attachment, type InstanceRow } from './records.ts';

/** The organization as approvals need it. */
export interface ApprovalOrg { id: string; slug: string; name: string }

/** An attachment in a submit: a manifest entry, or a file box file by id. */
export type AttachmentInput = Attachment | { FileId: string };

/** What a submit carries. @see docs/api/approvals.md "Submitting" */
export interface SubmitInput { WorkItemId: string; Title: string; Body: string; Attachments?: AttachmentInput[] }

/**
 * `approvals.instances`: submitting documents on a form (line derived, dual roles deduplicated,
 * numbered without gaps, approvers mailed), listing them and looking one up by number. The
 * passkey assertion of the submitter was verified by the route before {@link submit} runs.
 * @see docs/api/approvals.md "Instances"
 */
@injectable()
export class InstancesService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject('approvals.forms') private readonly forms: FormsService,
    @inject('approvals.lineResolver') private readonly resolver: LineResolver,
    @inject(approvalsExtensions.attachmentStore.id) private readonly attachmentStores: readonly AttachmentStore[],
  ) {}

  /** The preview of a form's line for `requesterId`. @throws 404 `FORM_NOT_FOUND` */
  async preview(orgId: string, workItemId: string, requesterId: string): Promise<ResolvedLine & { workItemId: string }> {
    const form = await this.forms.row(orgId, workItemId);
    const line = await this.resolver.resolve(orgId, form.docType, requesterId, await this.forms.positions(orgId, workItemId));
    return { workItemId, ...line };
  }

  /**
   * Submits a document (rule 1): `pending` with the first approver's step pending; with zero
   * approvers a human requester's document is `approved` at once (a `permission` form grants through
   * rbac's assignment path); an agent requester's is `unroutable` (kept, awaiting a qualified
   * person); a report is `sent` to its recipients. A separation-of-duties refusal of the grant
   * rolls the whole submit back (number included) and is recorded as `auth.sod.assignment_blocked`.
   * @throws 404 `FORM_NOT_FOUND` (`field: WorkItemId`), 403 `SOD_CONFLICT`, 409 `APPROVAL_LINE_UNRESOLVED` (a vacant column, human requester)
   */
  async submit(org: ApprovalOrg, requester: { connectedId: string; accountId: string; kind: RequesterKind }, input: SubmitInput): Promise<InstanceDto> {
    const { row, notify } = await this.assignments.withSodAudit(async (trx) => {
      const form = await this.forms.row(org.id, input.WorkItemId, trx, 'WorkItemId');
      const line = await this.resolver.resolve(org.id, form.docType, requester.connectedId, await this.forms.positions(org.id, form.id, trx), trx);
      // Zero approvers approve at once only when no column was left without someone who may approve:
      // a vacant column (no manager, no holder, a suspended person) is not an approval.
      if (form.docType !== 'report' && requester.kind === 'human' && line.unresolved.length > 0) throw approvalsErrors.lineUnresolved(line.unresolved);
      const routing = routingOf(form.docType, line, requester.kind);
      const now = this.clock.now();
      const documentNumber = await nextDocumentNumber(trx, org, now.getUTCFullYear());
      const status = ({ route: 'pending', auto: 'approved', unroutable: 'unroutable', sent: 'sent' } as const)[routing];
      const id = randomUUID();
      const attachments = await this.attachments(trx, org.id, requester.accountId, input.Attachments ?? [], id);
      const [inserted] = (await trx('approvals.instances').insert({
        id, orgId: org.id, workItemId: form.id, docType: form.docType, documentNumber, title: input.Title, body: input.Body,
        attachments: JSON.stringify(attachments), linkedRoleId: form.linkedRoleId,
        linkedPermissionScope: form.linkedPermissionScope, grantRoleId: form.grantRoleId, requesterConnectedId: requester.connectedId,
        requesterKind: requester.kind, status, createdAt: now, decidedAt: status === 'approved' ? now : null,
      }).returning('*')) as InstanceRow[];
      if (line.steps.length > 0 && routing !== 'unroutable') {
        await trx('approvals.steps').insert(line.steps.map((s) => ({
          id: randomUUID(), orgId: org.id, instanceId: inserted.id, stepOrder: s.order, labelKo: s.labelKo, labelEn: s.labelEn, labelJa: s.labelJa,
          kind: s.kind, approverConnectedId: s.connectedId, status: s.kind === 'receiver' ? 'received' : s.order === 1 ? 'pending' : 'waiting',
        })));
      }
      await this.audit.append(trx, {
        orgId: org.id, eventType: 'approval.instance.submitted',
        businessData: { instanceId: inserted.id, documentNumber, workItemId: form.id, docType: form.docType, status, approverCount: line.approverCount, requesterKind: requester.kind },
      });
      if (routing === 'auto' && inserted.grantRoleId) await this.grant(trx, inserted, requester.accountId);
      const notify = routing === 'sent' ? line.steps.map((s) => s.connectedId) : routing === 'route' ? [line.steps[0].connectedId] : [];
      return { row: inserted, notify };
    });
    await this.notify(org, row, notify);
    return (await renderInstances(this.db.knex, org.id, [row], requester.connectedId))[0];
  }

  /**
   * The document's attachments in the order given: manifest entries as they are, files (`FileId`)
   * sealed in the file box and described by what it stored.
   * @throws 400 `VALIDATION_FAILED` (files without the files plugin), 404 `ATTACHMENT_NOT_FOUND`
   */
  private async attachments(trx: Knex.Transaction, orgId: string, accountId: string, given: readonly AttachmentInput[], instanceId: string): Promise<Attachment[]> {
    const fileIds = [...new Set(given.flatMap((a) => ('FileId' in a && !('Name' in a) ? [a.FileId] : [])))];
    if (fileIds.length === 0) return given as Attachment[];
    const store = this.attachmentStores.at(-1);
    if (!store) throw approvalsErrors.noAttachmentStore();
    const sealed = new Map((await store.seal(trx, orgId, accountId, fileIds, instanceId)).map((f) => [f.FileId, f]));
    const missing = fileIds.find((id) => !sealed.has(id));
    if (missing) throw approvalsErrors.attachmentNotFound(missing);
    return given.map((a) => ('Name' in a ? a : { ...sealed.get(a.FileId)! }));
  }

  /**
   * Grants a `permission` document's role — the linked role, or the role backing its
   * `linkedPermissionScope` — to its requester through rbac's assignment path (SoD checked; a
   * refusal throws `SodConflictError`, which the caller's `withSodAudit` records).
   */
  async grant(trx: Knex.Transaction, row: InstanceRow, byAccountId: string): Promise<void> {
    await this.assignments.assign(trx, { orgId: row.orgId, membershipId: row.requesterConnectedId, roleId: row.grantRoleId!, assigner: { accountId: byAccountId } });
  }

  /** Mails `connectedIds` about `row`; delivery failures are logged and never block approvals. */
  async notify(org: ApprovalOrg, row: InstanceRow, connectedIds: readonly string[]): Promise<void> {
    if (connectedIds.length === 0) return;
    const people = await peopleOf(this.db.knex, org.id, [row.requesterConnectedId, ...connectedIds]);
    for (const id of connectedIds) {
      const to = people.get(id)?.email;
      if (!to) continue;
      try {
        await this.mail.send(approvalMail({
          to, orgName: org.name, documentNumber: row.documentNumber, title: row.title, requester: people.get(row.requesterConnectedId)?.name ?? '',
          report: row.docType === 'report', dashboardUrl: this.config.dashboardUrl,
        }));
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, instanceId: row.id }, 'approval mail not sent');
      }
    }
  }

  /** Instances `viewerId` requested or has a step on (approver or recipient), newest first. */
  async list(orgId: string, viewerId: string): Promise<InstanceDto[]> {
    const rows = (await this.db.knex('approvals.instances as i').where('i.orgId', orgId)
      .where((q) => q.where('i.requesterConnectedId', viewerId)
        .orWhereExists((s) => s.from('approvals.steps as s').whereRaw('s.instance_id = i.id').where('s.orgId', orgId).where('s.approverConnectedId', viewerId)))
      .select('i.*').orderBy([{ column: 'i.createdAt', order: 'desc' }, { column: 'i.documentNumber', order: 'desc' }])) as InstanceRow[];
    return renderInstances(this.db.knex, orgId, rows, viewerId);
  }

  /**
   * One instance by document number, for its requester, its approvers and recipients, and the
   * Owner or an Admin. @throws 404 `INSTANCE_NOT_FOUND`
   */
  async byNumber(orgId: string, documentNumber: string, viewer: { id: string; role: string }): Promise<InstanceDto> {
    const row = (await this.db.knex('approvals.instances').where({ orgId, documentNumber }).first()) as InstanceRow | undefined;
    if (!row) throw approvalsErrors.instanceNotFound();
    const [dto] = await renderInstances(this.db.knex, orgId, [row], viewer.id);
    const involved = dto.IsRequester || dto.Steps.some((s) => s.ApproverConnectedId === viewer.id);
    if (!involved && viewer.role !== 'Owner' && viewer.role !== 'Admin') throw approvalsErrors.instanceNotFound();
    return dto;
  }
}
