import type { Knex } from 'knex';
import { coreRefs, inject, injectable, parseCanonicalLine, SealBindingError, type AuditService, type Clock, type Database, type SealVerification } from '../../core/index.ts';
import { rbacRefs, type AssignmentsService } from '../rbac/api.ts';
import { approvalsErrors } from './errors.ts';
import { renderInstances, type InstanceDto } from './instance-view.ts';
import { InstancesService, type ApprovalOrg } from './instances.service.ts';
import type { InstanceRow, StepRow } from './records.ts';

/** Audit codes of stamps. @see docs/api/approvals.md "Events" */
const STAMP_EVENTS = {
  approve: { eventType: 'approval.stamp.approved', code: 'RPT031' },
  reject: { eventType: 'approval.stamp.rejected', code: 'RPT032' },
} as const;

/**
 * `approvals.stamps`: an approver's stamp on their pending step. The kernel has verified the
 * `approval.stamp` seal (content rebuilt and compared, typed reason compared) before
 * {@link stamp} runs; the decision sent must be the decision signed. Approve moves the line on
 * (the last approval approves the document; a `permission` document then grants its role through
 * rbac's assignment path); reject closes it. The audit event carries the `SealProof` as `sp`.
 * @see docs/api/approvals.md "Stamping"
 */
@injectable()
export class StampsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject('approvals.instances') private readonly instances: InstancesService,
  ) {}

  /**
   * Checks, before a seal is asked for or spent, that `memberId` has a pending step on the instance.
   * @throws 404 `INSTANCE_NOT_FOUND` (unknown, another organization's, or not an approver),
   *   409 `REPORT_NOT_STAMPED`, 409 `STEP_NOT_PENDING` (with `instanceStatus`)
   */
  async assertStampable(orgId: string, instanceId: string, memberId: string, trx?: Knex.Transaction): Promise<{ row: InstanceRow; step: StepRow }> {
    const db = trx ?? this.db.knex;
    const q = db('approvals.instances').where({ orgId, id: instanceId }).first();
    const row = (await (trx ? q.forUpdate() : q)) as InstanceRow | undefined;
    if (!row) throw approvalsErrors.instanceNotFound();
    const steps = (await db('approvals.steps').where({ orgId, instanceId, approverConnectedId: memberId })) as StepRow[];
    if (steps.length === 0) throw approvalsErrors.instanceNotFound();
    if (row.docType === 'report') throw approvalsErrors.reportNotStamped();
    const step = steps.find((s) => s.status === 'pending' && s.kind === 'approver');
    if (!step || row.status !== 'pending') throw approvalsErrors.stepNotPending(row.status);
    return { row, step };
  }

  /**
   * Records the stamp. @throws 403 `seal_binding_mismatch` (`mismatchedKeys: ['decision']`) when
   *   `Decision` is not the signed decision; the errors of {@link assertStampable}; 403 `SOD_CONFLICT`
   *   when the grant is refused (the stamp is then not recorded)
   */
  async stamp(
    org: ApprovalOrg, instanceId: string, member: { id: string; accountId: string },
    input: { Decision: 'approve' | 'reject'; Reason?: string | null }, seal: SealVerification,
  ): Promise<InstanceDto> {
    const signed = parseCanonicalLine(seal.proof.canonical).fields.find((f) => f.key === 'decision')?.value;
    if (signed !== input.Decision) {
      throw new SealBindingError('seal_binding_mismatch', 'the decision differs from the signed decision', { mismatchedKeys: ['decision'] });
    }
    const { row, next } = await this.assignments.withSodAudit(async (trx) => {
      const { row, step } = await this.assertStampable(org.id, instanceId, member.id, trx);
      const now = this.clock.now();
      const reason = input.Decision === 'reject' ? (input.Reason ?? '').trim() || null : null;
      await trx('approvals.steps').where({ id: step.id }).update({ status: input.Decision === 'approve' ? 'approved' : 'rejected', reason, credentialId: seal.credentialId, stampedAt: now });
      let next: string | null = null;
      let status: InstanceRow['status'] = 'pending';
      if (input.Decision === 'reject') {
        status = 'rejected';
        await trx('approvals.steps').where({ orgId: org.id, instanceId, status: 'waiting' }).update({ status: 'skipped' });
      } else {
        const waiting = (await trx('approvals.steps').where({ orgId: org.id, instanceId, status: 'waiting' }).orderBy('stepOrder').first()) as StepRow | undefined;
        if (waiting) {
          await trx('approvals.steps').where({ id: waiting.id }).update({ status: 'pending' });
          next = waiting.approverConnectedId;
        } else status = 'approved';
      }
      const [updated] = (await trx('approvals.instances').where({ id: row.id }).update({ status, decidedAt: status === 'pending' ? null : now }).returning('*')) as InstanceRow[];
      const event = STAMP_EVENTS[input.Decision];
      await this.audit.append(trx, {
        orgId: org.id, eventType: event.eventType,
        businessData: {
          code: event.code, instanceId, documentNumber: row.documentNumber, stepOrder: step.stepOrder, decision: input.Decision, reason,
          instanceStatus: status, sp: seal.proof,
        },
      });
      if (status === 'approved' && updated.linkedRoleId) await this.instances.grant(trx, updated, member.accountId);
      return { row: updated, next };
    });
    if (next) await this.instances.notify(org, row, [next]);
    return (await renderInstances(this.db.knex, org.id, [row], member.id))[0];
  }
}
