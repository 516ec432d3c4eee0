import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  coreRefs, inject, injectable, type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type Mailer, type OrgContext,
} from '../../core/index.ts';
import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { orgsRefs, type MembershipsService } from '../orgs/api.ts';
import { DIRECTOR_ORG_TYPES, isDirectorRoleKey, rbacRefs, type AssignmentsService, type RolesService } from '../rbac/api.ts';
import { membersExtensions } from './api.ts';
import { companyDomainsOf, isCompanyEmail } from './company-email.ts';
import { invitationMail } from './invitation-mail.ts';
import {
  effectiveStatus, INVITATION_TOKEN_BYTES, INVITATION_TTL_SECONDS, invitationDto, RESEND_INTERVAL_SECONDS, type InvitationDto, type InvitationRow,
} from './invitation-record.ts';
import { membersErrors } from './errors.ts';
import type { InvitationsService as InvitationsServiceApi } from './service-interfaces.ts';

export type { InvitationDto, InvitationStatus } from './invitation-record.ts';

/** The invite request body. @see docs/api/members.md */
export interface InviteInput {
  Email: string;
  RoleId: string;
  ReportingManagerId?: string;
  BoardChairman?: boolean;
  BoardSharePercent?: number;
  SealAssertionJson?: string;
  SealEmail?: string;
}

/** The inviter: account, membership role and (for plain members) their grants. */
export interface Inviter {
  /** Absent for a machine token (the audit event records the key as actor). */
  accountId?: string;
  email?: string;
  /** The inviter's membership role as the request's organization context carries it (orgs' `MembershipRole`). */
  role?: string;
  grants?: readonly string[];
}

type DomainSource = (orgId: string) => Promise<readonly string[]>;

/**
 * `members.invitations` (sending side): invite, re-send, cancel and list. Tokens are 256 random
 * bits, mailed once, kept as SHA-256; see `invitation-record.ts` for the states.
 * @see docs/api/members.md
 */
@injectable()
export class InvitationsService implements InvitationsServiceApi {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
    @inject(membersExtensions.companyDomains.id) private readonly domainSources: readonly DomainSource[],
  ) {}

  /**
   * Invites `Email` with the proposed role `RoleId` and mails the token. Director roles are checked
   * for organization type and (representative directors) the company-email gate; their seal was
   * verified by the route before this runs.
   * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND` (reporting manager), 409 `ROLE_INACTIVE`,
   *   403 `PERMISSION_DENIED` / `SOD_CONFLICT`, 400 `DIRECTOR_ORG_TYPE` / `COMPANY_EMAIL_REQUIRED` /
   *   `VALIDATION_FAILED`, 409 `ALREADY_MEMBER` / `INVITATION_PENDING`
   */
  async invite(org: OrgContext['organization'], inviter: Inviter, input: InviteInput): Promise<InvitationDto> {
    const email = input.Email.trim().toLowerCase();
    const role = await this.assignments.preflight(org.id, input.RoleId, { accountId: inviter.accountId, role: inviter.role, grants: inviter.grants });
    const director = isDirectorRoleKey(role.roleKey);
    if (director) {
      if (!DIRECTOR_ORG_TYPES.has(org.type)) throw membersErrors.directorOrgType(org.type);
      if (input.SealEmail !== undefined && input.SealEmail.trim().toLowerCase() !== inviter.email?.toLowerCase()) throw membersErrors.sealEmailMismatch();
      if (role.roleKey === 'REPRESENTATIVE_DIRECTOR' && !isCompanyEmail(email, await companyDomainsOf(org.id, this.domainSources))) {
        throw membersErrors.companyEmailRequired();
      }
    } else {
      if (input.BoardChairman !== undefined) throw membersErrors.directorFieldsOnly('BoardChairman');
      if (input.BoardSharePercent !== undefined) throw membersErrors.directorFieldsOnly('BoardSharePercent');
    }
    if (input.ReportingManagerId) {
      const manager = await this.memberships.findById(org.id, input.ReportingManagerId);
      if (!manager || manager.status !== 'active') throw membersErrors.memberNotFound('ReportingManagerId');
    }
    const account = await this.accounts.findByEmail(email);
    if (account) {
      const existing = await this.memberships.findByAccount(org.id, account.id);
      // An `invited` membership (SCIM provisioning) waits for this very acceptance.
      if (existing && existing.status !== 'revoked' && existing.status !== 'invited') throw membersErrors.alreadyMember(existing.status);
    }
    const token = this.crypto.randomToken(INVITATION_TOKEN_BYTES);
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      const open = (await trx('members.invitations').where({ orgId: org.id, email, status: 'pending' }).forUpdate().first()) as InvitationRow | undefined;
      if (open && effectiveStatus(open, now) === 'pending') throw membersErrors.invitationPending(open.id);
      if (open) await this.markExpired(trx, open);
      const [created] = (await trx('members.invitations').insert({
        id: randomUUID(), orgId: org.id, email, roleId: role.roleId, roleKey: role.roleKey, reportingManagerId: input.ReportingManagerId ?? null,
        boardChairman: director ? (input.BoardChairman ?? false) : null, boardSharePercent: director ? (input.BoardSharePercent ?? null) : null,
        status: 'pending', tokenHash: this.crypto.sha256Hex(token), expiresAt: this.expiry(now), invitedBy: inviter.accountId ?? null,
        sendCount: 1, lastSentAt: now, createdAt: now, updatedAt: now,
      }).returning('*')) as InvitationRow[];
      await this.audit.append(trx, {
        orgId: org.id, eventType: 'org.member.invited',
        businessData: {
          invitationId: created.id, email, roleId: role.roleId, roleKey: role.roleKey, reportingManagerId: created.reportingManagerId,
          ...(director ? { boardChairman: created.boardChairman, boardSharePercent: input.BoardSharePercent ?? null, sealEmail: input.SealEmail ?? null } : {}),
        },
      });
      return created;
    }).catch((err: { code?: string; nativeError?: { code?: string } }) => {
      if ((err.nativeError?.code ?? err.code) === '23505') throw membersErrors.invitationPending('');
      throw err;
    });
    await this.mail.send(invitationMail({ to: email, orgName: org.name, roleName: role.name, token, expiresAt: row.expiresAt, dashboardUrl: this.config.dashboardUrl, director }));
    return invitationDto(row, now);
  }

  /**
   * Re-sends a `pending` or `expired` invitation with a new token and expiry (the old token stops
   * working). At most one send per {@link RESEND_INTERVAL_SECONDS} per invitation.
   * The caller must be able to invite to the invitation's role, as inviting requires.
   * @throws 404 `INVITATION_NOT_FOUND`, 409 `INVITATION_NOT_PENDING`, 403 `PERMISSION_DENIED`,
   *   429 `RATE_LIMITED` with `retryAfterSeconds` (nothing changes, nothing is mailed)
   */
  async resend(org: OrgContext['organization'], inviter: Inviter, ref: { InvitationId?: string; Email?: string }): Promise<InvitationDto> {
    const token = this.crypto.randomToken(INVITATION_TOKEN_BYTES);
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      const q = trx('members.invitations').where({ orgId: org.id }).forUpdate();
      if (ref.InvitationId) q.where({ id: ref.InvitationId });
      else q.where({ email: ref.Email!.trim().toLowerCase() }).orderBy('createdAt', 'desc');
      const found = (await q.first()) as InvitationRow | undefined;
      if (!found) throw membersErrors.invitationNotFound();
      if (found.roleId) await this.assignments.assertMayGrant(org.id, found.roleId, inviter, trx);
      const status = effectiveStatus(found, now);
      if (status !== 'pending' && status !== 'expired') throw membersErrors.invitationNotPending(status);
      const waited = (now.getTime() - new Date(found.lastSentAt).getTime()) / 1000;
      if (waited < RESEND_INTERVAL_SECONDS) throw membersErrors.resendTooSoon(Math.ceil(RESEND_INTERVAL_SECONDS - waited));
      const [updated] = (await trx('members.invitations').where({ id: found.id }).update({
        status: 'pending', tokenHash: this.crypto.sha256Hex(token), expiresAt: this.expiry(now),
        sendCount: found.sendCount + 1, lastSentAt: now, updatedAt: now,
      }).returning('*')) as InvitationRow[];
      await this.audit.append(trx, { orgId: org.id, eventType: 'org.member.invitation_resent', businessData: { invitationId: found.id, email: found.email, previousStatus: status } });
      return updated;
    }).catch((err: { code?: string; nativeError?: { code?: string } }) => {
      // Re-sending an expired invitation while a newer one is open for the address.
      if ((err.nativeError?.code ?? err.code) === '23505') throw membersErrors.invitationPending('');
      throw err;
    });
    const roleName = row.roleId ? await this.roleName(org.id, row.roleId, row.roleKey ?? '') : 'Member';
    await this.mail.send(invitationMail({
      to: row.email, orgName: org.name, roleName, token, expiresAt: row.expiresAt, dashboardUrl: this.config.dashboardUrl, director: row.roleKey !== null && isDirectorRoleKey(row.roleKey),
    }));
    return invitationDto(row, now);
  }

  /**
   * Cancels a `pending` or `expired` invitation; the caller must be able to invite to its role, as
   * inviting requires (a plain member cannot cancel the Owner's invitation to a role they could not grant).
   * @throws 404 `INVITATION_NOT_FOUND`, 403 `PERMISSION_DENIED` (nothing changes), 409 `INVITATION_NOT_PENDING`
   */
  async cancel(orgId: string, inviter: Inviter, invitationId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (trx) => {
      const found = (await trx('members.invitations').where({ orgId, id: invitationId }).forUpdate().first()) as InvitationRow | undefined;
      if (!found) throw membersErrors.invitationNotFound();
      if (found.roleId) await this.assignments.assertMayGrant(orgId, found.roleId, inviter, trx);
      const status = effectiveStatus(found, now);
      if (status !== 'pending' && status !== 'expired') throw membersErrors.invitationNotPending(status);
      await trx('members.invitations').where({ id: found.id }).update({ status: 'cancelled', respondedAt: now, updatedAt: now });
      await this.audit.append(trx, { orgId, eventType: 'org.member.invitation_cancelled', businessData: { invitationId, email: found.email, previousStatus: status } });
    });
  }

  /**
   * SCIM provisioning of an address an Aerie account already has: an invitation to join as a plain
   * member (no role proposed), written in the caller's transaction; an open invitation to the address
   * is kept instead (it joins the person as well). Audited `org.member.invited` (`via: 'scim'`).
   * @returns the mail to send once the transaction commits (nothing to send when one was open)
   * @see docs/api/scim.md "An address that has an Aerie account"
   */
  async inviteProvisioned(trx: Knex.Transaction, org: { id: string; name: string }, email: string, scimTokenId: string): Promise<() => Promise<void>> {
    const now = this.clock.now();
    const open = (await trx('members.invitations').where({ orgId: org.id, email, status: 'pending' }).forUpdate().first()) as InvitationRow | undefined;
    if (open && effectiveStatus(open, now) === 'pending') return async () => {};
    if (open) await this.markExpired(trx, open);
    const token = this.crypto.randomToken(INVITATION_TOKEN_BYTES);
    const [row] = (await trx('members.invitations').insert({
      id: randomUUID(), orgId: org.id, email, roleId: null, roleKey: null, reportingManagerId: null, boardChairman: null, boardSharePercent: null,
      status: 'pending', tokenHash: this.crypto.sha256Hex(token), expiresAt: this.expiry(now), invitedBy: null,
      sendCount: 1, lastSentAt: now, createdAt: now, updatedAt: now,
    }).returning('*')) as InvitationRow[];
    await this.audit.append(trx, {
      orgId: org.id, eventType: 'org.member.invited',
      businessData: { invitationId: row!.id, email, roleId: null, roleKey: null, reportingManagerId: null, via: 'scim', scimTokenId },
    });
    return async () => {
      await this.mail.send(invitationMail({ to: email, orgName: org.name, roleName: 'Member', token, expiresAt: row!.expiresAt, dashboardUrl: this.config.dashboardUrl, director: false }));
    };
  }

  /** Cancels the open invitations to `email` in `orgId` (SCIM deleted the invited User), in `trx`. @returns how many. */
  async cancelOpen(trx: Knex.Transaction, orgId: string, email: string): Promise<number> {
    const rows = (await trx('members.invitations').where({ orgId, email, status: 'pending' }).forUpdate()) as InvitationRow[];
    const now = this.clock.now();
    for (const row of rows) {
      await trx('members.invitations').where({ id: row.id }).update({ status: 'cancelled', respondedAt: now, updatedAt: now });
      await this.audit.append(trx, { orgId, eventType: 'org.member.invitation_cancelled', businessData: { invitationId: row.id, email, previousStatus: effectiveStatus(row, now), via: 'scim' } });
    }
    return rows.length;
  }

  /** Invitations of `orgId`, newest first; `status` filters by effective state. */
  async list(orgId: string, status?: string): Promise<InvitationDto[]> {
    const now = this.clock.now();
    const rows = (await this.db.knex('members.invitations').where({ orgId }).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }])) as InvitationRow[];
    return rows.map((r) => invitationDto(r, now)).filter((d) => !status || d.Status === status);
  }

  /** Writes `expired` on a pending row past its expiry, with its audit event (inside `trx`). */
  async markExpired(trx: Knex.Transaction, row: InvitationRow): Promise<void> {
    await trx('members.invitations').where({ id: row.id, status: 'pending' }).update({ status: 'expired', updatedAt: this.clock.now() });
    await this.audit.append(trx, { orgId: row.orgId, eventType: 'org.member.invitation_expired', businessData: { invitationId: row.id, email: row.email } });
  }

  private expiry(now: Date): Date {
    return new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000);
  }

  private async roleName(orgId: string, roleId: string, fallback: string): Promise<string> {
    return (await this.roles.find(orgId, roleId))?.name ?? fallback;
  }
}
