import type { Knex } from 'knex';
import {
  AerieError, coreRefs, inject, injectable, parseCanonicalLine, SealBindingError, type AuditService, type Clock, type Database,
  type SealProof, type SealService, type SealVerification,
} from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { rbacRefs, type AssignmentsService } from '../rbac/api.ts';
import { approvalsErrors } from './errors.ts';
import { renderInstances, type InstanceDto } from './instance-view.ts';
import { InstancesService, type ApprovalOrg } from './instances.service.ts';
import type { InstanceRow, StepRow } from './records.ts';
import { SecondDeviceService, type SecondDeviceDto } from './second-device.service.ts';
import { SecondDeviceSettingsService } from './second-device-settings.service.ts';
import { stampSubject } from './stamp-binding.ts';

/** Audit codes of stamps. @see docs/api/approvals.md "Events" */
const STAMP_EVENTS = {
  approve: { eventType: 'approval.stamp.approved', code: 'RPT031' },
  reject: { eventType: 'approval.stamp.rejected', code: 'RPT032' },
} as const;

/** Errors at confirmation that end a second-device request as `refused` (the document moved on, or the grant was refused). */
const REFUSING = new Set(['STEP_NOT_PENDING', 'INSTANCE_NOT_FOUND', 'SOD_CONFLICT', 'seal_binding_mismatch']);

/** The answer of `/stamp`: the recorded instance (200) or the second-device request it waits on (202). */
export type StampOutcome =
  | { recorded: true; instance: InstanceDto & { secondDevice?: { notice: true; hasSecondDevice: boolean } } }
  | { recorded: false; body: { status: 'awaiting_second_device'; secondDevice: { requestId: string; expiresAt: string; channel: 'email' | null } } };

/** Who stamps, the decision, and the computer's seal. */
interface StampRecord {
  member: { id: string; accountId: string }; decision: 'approve' | 'reject'; reason: string | null; credentialId: string; proof: SealProof;
  secondDevice?: { requestId: string; stepId: string; credentialId: string; sp: SealProof };
}

/**
 * `approvals.stamps`: an approver's stamp on their pending step. The kernel has verified the
 * `approval.stamp` seal (content rebuilt and compared, typed reason compared) before
 * {@link stamp} runs; the decision sent must be the decision signed. Approve moves the line on
 * (the last approval approves the document; a `permission` document then grants its role through
 * rbac's assignment path); reject closes it. The audit event carries the `SealProof` as `sp`.
 * Rule 7: with second-device confirmation on, the notice phase records the stamp and says whether
 * the approver has another passkey; the required phase records nothing until the second device
 * confirms ({@link confirm}).
 * @see docs/api/approvals.md "Stamping", "Second-device confirmation"
 */
@injectable()
export class StampsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.seals.id) private readonly seals: SealService,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject('approvals.instances') private readonly instances: InstancesService,
    @inject('approvals.secondDevice') private readonly secondDevice: SecondDeviceService,
    @inject('approvals.secondDeviceSettings') private readonly settings: SecondDeviceSettingsService,
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
   * Before the seal is spent: in the required phase an approver with fewer than two passkeys can
   * never confirm on a second device. @throws 409 `second_device_required`
   */
  async assertSecondDeviceReady(orgId: string, accountId: string): Promise<void> {
    if ((await this.settings.mode(orgId)) === 'required' && !(await this.secondDevice.hasSecondDevice(accountId))) throw approvalsErrors.secondDeviceRequired();
  }

  /**
   * Stamps: records it (setting off, or notice phase with `secondDevice`), or opens a second-device
   * request and mails its link (required phase). @throws 403 `seal_binding_mismatch`
   *   (`mismatchedKeys: ['decision']`) when `Decision` is not the signed decision; 409
   *   `second_device_required`; the errors of {@link assertStampable}; 403 `SOD_CONFLICT` when the
   *   grant is refused (the stamp is then not recorded)
   */
  async stamp(
    org: ApprovalOrg, instanceId: string, member: { id: string; accountId: string },
    input: { Decision: 'approve' | 'reject'; Reason?: string | null }, seal: SealVerification,
  ): Promise<StampOutcome> {
    const signed = parseCanonicalLine(seal.proof.canonical).fields.find((f) => f.key === 'decision')?.value;
    if (signed !== input.Decision) {
      throw new SealBindingError('seal_binding_mismatch', 'the decision differs from the signed decision', { mismatchedKeys: ['decision'] });
    }
    const reason = input.Decision === 'reject' ? (input.Reason ?? '').trim() || null : null;
    const mode = await this.settings.mode(org.id);
    if (mode === 'required') {
      if (!(await this.secondDevice.hasSecondDevice(member.accountId, seal.credentialId))) throw approvalsErrors.secondDeviceRequired();
      const { row, request } = await this.db.knex.transaction(async (trx) => {
        const { row, step } = await this.assertStampable(org.id, instanceId, member.id, trx);
        return { row, request: await this.secondDevice.open(trx, row, step, member, { decision: input.Decision, reason }, seal) };
      });
      const channel = await this.secondDevice.deliver(org, row, request, member, input.Decision);
      return { recorded: false, body: { status: 'awaiting_second_device', secondDevice: { requestId: request.id, expiresAt: request.expiresAt.toISOString(), channel } } };
    }
    const instance = await this.recordAndNotify(org, instanceId, { member, decision: input.Decision, reason, credentialId: seal.credentialId, proof: seal.proof });
    if (mode === 'off') return { recorded: true, instance };
    return { recorded: true, instance: { ...instance, secondDevice: { notice: true, hasSecondDevice: await this.secondDevice.hasSecondDevice(member.accountId, seal.credentialId) } } };
  }

  /**
   * The second device confirms with a content-bound `approval.stamp` assertion from another
   * passkey of the approver; the stamp is then recorded with the computer's proof as `sp` and the
   * second device's as `secondDevice.sp`. A document that moved on meanwhile (step no longer
   * pending, content changed, grant refused) ends the request `refused`; a seal made for another
   * instance is refused (403 `seal_binding_mismatch`) and leaves the request open.
   * @throws 404 `SECOND_DEVICE_REQUEST_NOT_FOUND`, 410 `SECOND_DEVICE_LINK_EXPIRED`, 409
   *   `SECOND_DEVICE_LINK_USED`, 409 `SECOND_DEVICE_SAME_PASSKEY`, 401 `STEPUP_REQUIRED` /
   *   `STEPUP_FAILED`, 403 `seal_binding_mismatch`, and the stamp's errors
   */
  async confirm(token: string, assertion: unknown): Promise<SecondDeviceDto> {
    const request = await this.secondDevice.byToken(token);
    if (this.secondDevice.assertionCredentialId(assertion) === request.credentialId) throw approvalsErrors.secondDeviceSamePasskey();
    const orgRecord = await this.orgs.findById(request.orgId);
    const org: ApprovalOrg = { id: request.orgId, slug: orgRecord?.slug ?? '', name: orgRecord?.name ?? '' };
    try {
      const seal = await this.seals.verify({
        accountId: request.accountId, purpose: 'approval.stamp', subject: stampSubject(request.instanceId), assertion,
        inputs: { 'input.reason': request.reason ?? '' },
      });
      if (seal.credentialId === request.credentialId) throw approvalsErrors.secondDeviceSamePasskey();
      this.secondDevice.assertSameContent(request, seal);
      await this.recordAndNotify(org, request.instanceId, {
        member: { id: request.approverConnectedId, accountId: request.accountId }, decision: request.decision, reason: request.reason,
        credentialId: request.credentialId, proof: request.proof,
        secondDevice: { requestId: request.id, stepId: request.stepId, credentialId: seal.credentialId, sp: seal.proof },
      });
    } catch (err) {
      // A seal for another instance is the wrong seal, not a document that moved on: the request stays open.
      const otherInstance = err instanceof SealBindingError && (err.details.mismatchedKeys as string[] | undefined)?.includes('subject');
      if (err instanceof AerieError && REFUSING.has(err.code) && !otherInstance) {
        const code = err.code;
        await this.db.knex.transaction(async (trx) => this.secondDevice.finish(trx, await this.secondDevice.lockOpen(trx, request.id), 'refused', { actor: request.accountId, refusedCode: code }))
          .catch(() => undefined); // already final or expired: the original error is the answer
      }
      throw err;
    }
    return this.secondDevice.poll(request.orgId, request.id, request.approverConnectedId);
  }

  /** Records the stamp in one transaction (SoD-audited), mails the next approver, answers the instance as the stamper sees it. */
  private async recordAndNotify(org: ApprovalOrg, instanceId: string, stamp: StampRecord): Promise<InstanceDto> {
    const { row, next } = await this.assignments.withSodAudit(async (trx) => {
      // The request is locked first, so of two confirmations racing on one link the second sees it used.
      const open = stamp.secondDevice && (await this.secondDevice.lockOpen(trx, stamp.secondDevice.requestId));
      const result = await this.record(trx, org, instanceId, stamp);
      if (open) await this.secondDevice.finish(trx, open, 'done', { actor: stamp.member.accountId, confirmCredentialId: stamp.secondDevice!.credentialId });
      return result;
    });
    if (next) await this.instances.notify(org, row, [next]);
    return (await renderInstances(this.db.knex, org.id, [row], stamp.member.id))[0];
  }

  /** Moves the step and the instance, audits RPT031/RPT032 with `sp`, grants on the last approval. */
  private async record(trx: Knex.Transaction, org: ApprovalOrg, instanceId: string, stamp: StampRecord): Promise<{ row: InstanceRow; next: string | null }> {
    const { row, step } = await this.assertStampable(org.id, instanceId, stamp.member.id, trx);
    if (stamp.secondDevice && step.id !== stamp.secondDevice.stepId) throw approvalsErrors.stepNotPending(row.status);
    const now = this.clock.now();
    const { decision, reason } = stamp;
    await trx('approvals.steps').where({ id: step.id }).update({ status: decision === 'approve' ? 'approved' : 'rejected', reason, credentialId: stamp.credentialId, stampedAt: now });
    let next: string | null = null;
    let status: InstanceRow['status'] = 'pending';
    if (decision === 'reject') {
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
    const event = STAMP_EVENTS[decision];
    await this.audit.append(trx, {
      orgId: org.id, eventType: event.eventType, actor: { type: 'account', id: stamp.member.accountId },
      businessData: {
        code: event.code, instanceId, documentNumber: row.documentNumber, stepOrder: step.stepOrder, decision, reason,
        instanceStatus: status, sp: stamp.proof,
        ...(stamp.secondDevice ? { secondDevice: { requestId: stamp.secondDevice.requestId, credentialId: stamp.secondDevice.credentialId, sp: stamp.secondDevice.sp } } : {}),
      },
    });
    if (status === 'approved' && updated.grantRoleId) await this.instances.grant(trx, updated, stamp.member.accountId);
    return { row: updated, next };
  }
}
