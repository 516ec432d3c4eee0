import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  coreRefs, inject, injectable, parseCanonicalLine, SealBindingError, type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type Mailer,
  type SealProof, type SealService, type SealVerification, type StepUpOptions,
} from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { approvalsErrors } from './errors.ts';
import type { ApprovalOrg } from './instances.service.ts';
import { peopleOf, type InstanceRow, type StepRow } from './records.ts';
import { secondDeviceMail } from './second-device-mail.ts';
import { stampSubject } from './stamp-binding.ts';

/** The one-time link lives 10 minutes (spec 02 "Limits": second-device link). */
export const SECOND_DEVICE_TTL_SECONDS = 600;

/** Statuses the computer polls (spec 02 rule 7; `expired` is Aerie's name for the expiry value). */
export type SecondDeviceStatus = 'pending' | 'completing' | 'done' | 'denied' | 'refused' | 'expired';
const OPEN: SecondDeviceStatus[] = ['pending', 'completing'];

/** `approvals.second_device_requests` as knex answers it. */
export interface SecondDeviceRow {
  id: string; orgId: string; instanceId: string; stepId: string; approverConnectedId: string; accountId: string;
  decision: 'approve' | 'reject'; reason: string | null; credentialId: string; proof: SealProof; tokenHash: string;
  channel: 'email' | null; status: SecondDeviceStatus; refusedCode: string | null; confirmCredentialId: string | null;
  createdAt: Date; expiresAt: Date; finishedAt: Date | null;
}

/** What the computer polls: `GET /api/org/{slug}/approvals/second-device/{requestId}`. */
export interface SecondDeviceDto {
  requestId: string; status: SecondDeviceStatus; instanceId: string; documentNumber: string; decision: 'approve' | 'reject';
  channel: 'email' | null; expiresAt: string; finishedAt: string | null; error: string | null;
}

/** What the second device is shown before it signs: `POST /api/approvals/second-device/options`. */
export interface SecondDeviceOptionsDto extends StepUpOptions {
  requestId: string; org: { slug: string; name: string }; documentNumber: string; title: string;
  decision: 'approve' | 'reject'; reason: string | null; expiresAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const credentialIdOf = (assertion: unknown): string | undefined => {
  try {
    const parsed = typeof assertion === 'string' ? JSON.parse(assertion) : assertion;
    return typeof parsed?.id === 'string' ? parsed.id : undefined;
  } catch {
    return undefined;
  }
};

/**
 * `approvals.secondDevice`: the confirmation requests of rule 7. A stamp in the required phase
 * opens one (the computer's seal proof kept, the step untouched), the one-time link goes out by
 * email through `core.mail`, the computer polls it, and the second device asks for a challenge
 * (`completing`), then confirms with another passkey or denies. Expiry is applied lazily, by
 * `core.clock`, whenever a request is read; each transition is audited.
 * @see spec 02 "Approvals" rule 7; docs/api/approvals.md "Second-device confirmation"
 */
@injectable()
export class SecondDeviceService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(coreRefs.seals.id) private readonly seals: SealService,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
  ) {}

  /**
   * Whether the account has a passkey other than `exceptCredentialId`; without it (before a seal
   * says which passkey stamps), whether it has at least two.
   */
  async hasSecondDevice(accountId: string, exceptCredentialId?: string): Promise<boolean> {
    const ids = await this.seals.credentialIds(accountId);
    return exceptCredentialId ? ids.some((id) => id !== exceptCredentialId) : ids.length >= 2;
  }

  /**
   * Opens a request for a verified stamp in `trx` (audited `approval.second_device.requested`).
   * @returns the request id, its expiry and the one-time token (returned once; only its hash is kept)
   */
  async open(
    trx: Knex.Transaction, row: InstanceRow, step: StepRow, member: { id: string; accountId: string },
    input: { decision: 'approve' | 'reject'; reason: string | null }, seal: SealVerification,
  ): Promise<{ id: string; token: string; expiresAt: Date }> {
    const now = this.clock.now();
    const id = randomUUID();
    const token = this.crypto.randomToken(32);
    const expiresAt = new Date(now.getTime() + SECOND_DEVICE_TTL_SECONDS * 1000);
    await trx('approvals.second_device_requests').insert({
      id, orgId: row.orgId, instanceId: row.id, stepId: step.id, approverConnectedId: member.id, accountId: member.accountId,
      decision: input.decision, reason: input.reason, credentialId: seal.credentialId, proof: JSON.stringify(seal.proof),
      tokenHash: this.crypto.sha256Hex(token), channel: null, status: 'pending', createdAt: now, expiresAt,
    });
    await this.audit.append(trx, {
      orgId: row.orgId, eventType: 'approval.second_device.requested',
      businessData: {
        requestId: id, instanceId: row.id, documentNumber: row.documentNumber, stepOrder: step.stepOrder, decision: input.decision,
        credentialId: seal.credentialId, expiresAt: expiresAt.toISOString(),
      },
    });
    return { id, token, expiresAt };
  }

  /**
   * Mails the link to the approver; answers the channel used (`email`), or null when the mail could
   * not be sent — delivery failures are logged and never block the approval.
   */
  async deliver(org: ApprovalOrg, row: InstanceRow, request: { id: string; token: string; expiresAt: Date }, member: { id: string }, decision: 'approve' | 'reject'): Promise<'email' | null> {
    const to = (await peopleOf(this.db.knex, org.id, [member.id])).get(member.id)?.email;
    if (!to) return null;
    try {
      await this.mail.send(secondDeviceMail({
        to, orgName: org.name, documentNumber: row.documentNumber, title: row.title, decision, token: request.token,
        expiresAt: request.expiresAt, dashboardUrl: this.config.dashboardUrl,
      }));
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, requestId: request.id }, 'second-device mail not sent');
      return null;
    }
    await this.db.knex('approvals.second_device_requests').where({ id: request.id }).update({ channel: 'email' });
    return 'email';
  }

  /** The computer's poll. @throws 404 `SECOND_DEVICE_REQUEST_NOT_FOUND` (unknown, another organization's or another person's) */
  async poll(orgId: string, requestId: string, memberId: string): Promise<SecondDeviceDto> {
    const row = (await this.db.knex('approvals.second_device_requests').where({ orgId, id: requestId, approverConnectedId: memberId }).first()) as SecondDeviceRow | undefined;
    if (!row) throw approvalsErrors.secondDeviceNotFound();
    return this.toDto(await this.expireIfDue(row));
  }

  /**
   * The request a one-time link names, still open.
   * @throws 404 `SECOND_DEVICE_REQUEST_NOT_FOUND`, 410 `SECOND_DEVICE_LINK_EXPIRED`, 409 `SECOND_DEVICE_LINK_USED` (`status`)
   */
  async byToken(token: string): Promise<SecondDeviceRow> {
    const found = (await this.db.knex('approvals.second_device_requests').where({ tokenHash: this.crypto.sha256Hex(token) }).first()) as SecondDeviceRow | undefined;
    if (!found) throw approvalsErrors.secondDeviceNotFound();
    return this.assertOpen(await this.expireIfDue(found));
  }

  /** Locks an open request in `trx` for its final move. @throws as {@link byToken} */
  async lockOpen(trx: Knex.Transaction, id: string): Promise<SecondDeviceRow> {
    const row = (await trx('approvals.second_device_requests').where({ id }).forUpdate().first()) as SecondDeviceRow;
    if (OPEN.includes(row.status) && this.clock.now().getTime() >= new Date(row.expiresAt).getTime()) throw approvalsErrors.secondDeviceExpired();
    return this.assertOpen(row);
  }

  private assertOpen(row: SecondDeviceRow): SecondDeviceRow {
    if (row.status === 'expired') throw approvalsErrors.secondDeviceExpired();
    if (!OPEN.includes(row.status)) throw approvalsErrors.secondDeviceUsed(row.status);
    return row;
  }

  /**
   * The second device opens the link: the request moves to `completing` and a content-bound
   * `approval.stamp` challenge over the same document and decision is issued, offering every
   * passkey of the approver except the one that stamped.
   * @throws as {@link byToken}; 409 `second_device_required` when the approver has no other passkey left
   */
  async options(token: string): Promise<SecondDeviceOptionsDto> {
    const row = await this.byToken(token);
    // Another passkey may have been removed since the stamp; the stamping one never confirms.
    if (!(await this.hasSecondDevice(row.accountId, row.credentialId))) throw approvalsErrors.secondDeviceRequired();
    const instance = (await this.db.knex('approvals.instances').where({ orgId: row.orgId, id: row.instanceId }).first()) as InstanceRow;
    const org = await this.orgs.findById(row.orgId);
    const issued = await this.seals.issueOptions({
      accountId: row.accountId, purpose: 'approval.stamp', subject: stampSubject(row.instanceId),
      ...(row.decision === 'reject' ? { inputs: [{ key: 'input.reason', value: row.reason ?? '' }] } : {}),
    });
    const options = issued.options && {
      ...issued.options,
      allowCredentials: (issued.options.allowCredentials as Array<{ id: string }>).filter((c) => c.id !== row.credentialId),
    };
    await this.db.knex('approvals.second_device_requests').where({ id: row.id, status: 'pending' }).update({ status: 'completing' });
    return {
      requestId: row.id, org: { slug: org?.slug ?? '', name: org?.name ?? '' }, documentNumber: instance.documentNumber, title: instance.title,
      decision: row.decision, reason: row.reason, expiresAt: new Date(row.expiresAt).toISOString(), ...issued, options,
    };
  }

  /** The second device answers "this was not me": the stamp is never recorded. */
  async deny(token: string): Promise<SecondDeviceDto> {
    const { id } = await this.byToken(token);
    const row = await this.db.knex.transaction(async (trx) => {
      const open = await this.lockOpen(trx, id);
      return this.finish(trx, open, 'denied', { actor: open.accountId });
    });
    return this.toDto(row);
  }

  /** Moves an open request to a final status and audits it (`approval.second_device.{status}`). */
  async finish(
    trx: Knex.Transaction, row: SecondDeviceRow, status: 'done' | 'denied' | 'refused' | 'expired',
    extra: { actor?: string; confirmCredentialId?: string; refusedCode?: string } = {},
  ): Promise<SecondDeviceRow> {
    const now = this.clock.now();
    const [updated] = (await trx('approvals.second_device_requests').where({ id: row.id }).whereIn('status', OPEN)
      .update({ status, finishedAt: now, confirmCredentialId: extra.confirmCredentialId ?? null, refusedCode: extra.refusedCode ?? null })
      .returning('*')) as SecondDeviceRow[];
    if (!updated) return row;
    const instance = (await trx('approvals.instances').where({ id: row.instanceId }).first('documentNumber')) as { documentNumber: string };
    const eventType = { done: 'approval.second_device.confirmed', denied: 'approval.second_device.denied', refused: 'approval.second_device.refused', expired: 'approval.second_device.expired' }[status];
    await this.audit.append(trx, {
      orgId: row.orgId, eventType, actor: extra.actor ? { type: 'account', id: extra.actor } : { type: 'system', id: 'system' },
      businessData: {
        requestId: row.id, instanceId: row.instanceId, documentNumber: instance.documentNumber, decision: row.decision,
        ...(extra.confirmCredentialId ? { credentialId: extra.confirmCredentialId, stampCredentialId: row.credentialId } : {}),
        ...(extra.refusedCode ? { error: extra.refusedCode } : {}),
      },
    });
    return updated;
  }

  /**
   * The second device's verified seal signed what the computer signed: the same fields (document,
   * decision, reason, grants), nonce apart. Its assertion may answer any `approval.stamp` challenge
   * of the approver on the instance, so the seal service alone does not tie it to this request.
   * @throws 403 `seal_binding_mismatch` (`mismatchedKeys`)
   */
  assertSameContent(request: SecondDeviceRow, seal: SealVerification): void {
    const valuesOf = (canonical: string) => {
      const byKey = new Map<string, string[]>();
      for (const f of parseCanonicalLine(canonical).fields) byKey.set(f.key, [...(byKey.get(f.key) ?? []), f.value]);
      return byKey;
    };
    const [stamped, confirmed] = [valuesOf(request.proof.canonical), valuesOf(seal.proof.canonical)];
    const mismatchedKeys = [...new Set([...stamped.keys(), ...confirmed.keys()])]
      .filter((key) => JSON.stringify(stamped.get(key) ?? []) !== JSON.stringify(confirmed.get(key) ?? []));
    if (mismatchedKeys.length > 0) {
      throw new SealBindingError('seal_binding_mismatch', 'the second device signed other content than the stamp', { mismatchedKeys });
    }
  }

  /** The credential id an assertion names, read without verifying it (to refuse the stamping passkey before a challenge is spent). */
  assertionCredentialId(assertion: unknown): string | undefined {
    return credentialIdOf(assertion);
  }

  /** Marks an open request past its expiry `expired` (audited once); answers the row as it now stands. */
  private async expireIfDue(row: SecondDeviceRow): Promise<SecondDeviceRow> {
    if (!OPEN.includes(row.status) || this.clock.now().getTime() < new Date(row.expiresAt).getTime()) return row;
    return this.db.knex.transaction((trx) => this.finish(trx, row, 'expired'));
  }

  /** The poll's shape. */
  async toDto(row: SecondDeviceRow): Promise<SecondDeviceDto> {
    const instance = (await this.db.knex('approvals.instances').where({ id: row.instanceId }).first('documentNumber')) as { documentNumber: string };
    return {
      requestId: row.id, status: row.status, instanceId: row.instanceId, documentNumber: instance.documentNumber, decision: row.decision,
      channel: row.channel, expiresAt: iso(row.expiresAt)!, finishedAt: iso(row.finishedAt), error: row.refusedCode,
    };
  }
}
