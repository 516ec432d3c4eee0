import type { Knex } from 'knex';
import {
  coreRefs, inject, injectable, type AuditService, type Clock, type CryptoService, type Database, type EventBus, type Principal,
} from '../../core/index.ts';
import { accountsRefs, type AccountDto, type AccountsService, type SessionsService } from '../accounts/api.ts';
import { orgsRefs, type MembershipDto, type MembershipsService, type OrganizationsService } from '../orgs/api.ts';
import { isDirectorRoleKey, rbacRefs, type AssignmentDto, type AssignmentsService, type MembershipType } from '../rbac/api.ts';
import { membersExtensions, type DirectorAccepted, type ManagerChangedHook } from './api.ts';
import { effectiveStatus, type InvitationRow } from './invitation-record.ts';
import { membersErrors } from './errors.ts';

type DirectorHook = (event: DirectorAccepted, trx: Knex.Transaction) => Promise<void>;

/** What an accepted invitation answers. @see docs/api/members.md "POST /api/org/invitation/accept" */
export interface AcceptedDto {
  Organization: { id: string; slug: string; name: string; type: string };
  Member: { ConnectedIdId: string; Role: MembershipDto['role']; Status: MembershipDto['status']; MembershipType: MembershipType; Roles: AssignmentDto[] };
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: Error };

/**
 * `members.invitations` (answering side): accept (signed in, same email), decline (token only) and
 * accept-with-register (anonymous: the token was mailed to the address, which proves it).
 * Acceptance joins the organization (or re-activates a revoked membership), assigns the proposed
 * role through rbac (snapshot, separation of duties, membership type), keeps the reporting manager
 * and director fields on the member's profile, and — for directors — runs the `directorAccepted`
 * hooks in the same transaction, then publishes `org.member.director_accepted`.
 * @see docs/api/members.md
 */
@injectable()
export class InvitationResponseService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(accountsRefs.sessions.id) private readonly sessions: SessionsService,
    @inject(orgsRefs.organizations.id) private readonly organizations: OrganizationsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject(membersExtensions.directorAccepted.id) private readonly directorHooks: readonly DirectorHook[],
    @inject(membersExtensions.managerChanged.id) private readonly managerHooks: readonly ManagerChangedHook[],
  ) {}

  /**
   * Accepts for the signed-in account, whose email must be the invitation's.
   * @throws 404 `INVITATION_NOT_FOUND`, 410 `INVITATION_EXPIRED`, 409 `INVITATION_NOT_PENDING`,
   *   403 `INVITATION_EMAIL_MISMATCH`, 409 `ALREADY_MEMBER`, 403 `SOD_CONFLICT`, 404 `ROLE_NOT_FOUND`, 409 `ROLE_INACTIVE`
   */
  async accept(token: string, principal: Principal): Promise<AcceptedDto> {
    let director: DirectorAccepted | undefined;
    const outcome = await this.assignments.withSodAudit(async (trx): Promise<Outcome<{ member: MembershipDto; type: MembershipType; roles: AssignmentDto[]; orgId: string }>> => {
      const row = await this.pendingRow(trx, token);
      if (!row.ok) return row;
      const account = principal.accountId ? await this.accounts.findById(principal.accountId, trx) : undefined;
      if (!account || account.email.toLowerCase() !== row.value.email) throw membersErrors.emailMismatch();
      const joined = await this.join(trx, row.value, account.id);
      director = joined.director;
      return { ok: true, value: { ...joined, orgId: row.value.orgId } };
    });
    if (!outcome.ok) throw outcome.error;
    this.published(director);
    return this.answer(outcome.value.orgId, outcome.value);
  }

  /**
   * Registers the invited address and accepts in one step; answers a session like email sign-in.
   * @throws as {@link accept}, and 409 `ACCOUNT_EXISTS` when the address already has an account
   */
  async acceptWithRegister(token: string, displayName: string | null, meta: { userAgent?: string; ip?: string }): Promise<AcceptedDto & {
    sessionToken: string; expiresAt: string; account: AccountDto;
  }> {
    let director: DirectorAccepted | undefined;
    const outcome = await this.assignments.withSodAudit(async (trx) => {
      const row = await this.pendingRow(trx, token);
      if (!row.ok) return row;
      if (await this.accounts.findByEmail(row.value.email, trx)) throw membersErrors.accountExists();
      // The token reached this address, so the address is proven like an email code proves it.
      const { account } = await this.accounts.ensureVerified(row.value.email, displayName, trx);
      const session = await this.sessions.create(account.id, meta, trx);
      const joined = await this.join(trx, row.value, account.id);
      director = joined.director;
      return { ok: true as const, value: { ...joined, orgId: row.value.orgId, account, session } };
    });
    if (!outcome.ok) throw outcome.error;
    const { account, session } = outcome.value;
    this.events.emit({ type: 'account.registered', payload: { accountId: account.id } });
    this.published(director);
    return {
      sessionToken: session.token, expiresAt: session.expiresAt.toISOString(), account: this.accounts.toDto(account),
      ...(await this.answer(outcome.value.orgId, outcome.value)),
    };
  }

  /** Declines with the token alone. @throws 404 `INVITATION_NOT_FOUND`, 410 `INVITATION_EXPIRED`, 409 `INVITATION_NOT_PENDING` */
  async decline(token: string): Promise<{ InvitationId: string; Status: 'declined' }> {
    const outcome = await this.db.transaction(async (trx): Promise<Outcome<InvitationRow>> => {
      const row = await this.pendingRow(trx, token);
      if (!row.ok) return row;
      const now = this.clock.now();
      await trx('members.invitations').where({ id: row.value.id }).update({ status: 'declined', respondedAt: now, updatedAt: now });
      await this.audit.append(trx, { orgId: row.value.orgId, eventType: 'org.member.invitation_declined', businessData: { invitationId: row.value.id, email: row.value.email } });
      return row;
    });
    if (!outcome.ok) throw outcome.error;
    return { InvitationId: outcome.value.id, Status: 'declined' };
  }

  /**
   * The pending invitation for `token`, locked. An expired one is marked `expired` (committed with
   * the transaction) and reported as an outcome rather than thrown, so the mark is kept.
   */
  private async pendingRow(trx: Knex.Transaction, token: string): Promise<Outcome<InvitationRow>> {
    const row = (await trx('members.invitations').where({ tokenHash: this.crypto.sha256Hex(token) }).forUpdate().first()) as InvitationRow | undefined;
    if (!row) throw membersErrors.invitationNotFound();
    const status = effectiveStatus(row, this.clock.now());
    if (status === 'expired') {
      if (row.status === 'pending') {
        await trx('members.invitations').where({ id: row.id }).update({ status: 'expired', updatedAt: this.clock.now() });
        await this.audit.append(trx, { orgId: row.orgId, eventType: 'org.member.invitation_expired', businessData: { invitationId: row.id, email: row.email } });
      }
      return { ok: false, error: membersErrors.invitationExpired() };
    }
    if (status !== 'pending') throw membersErrors.invitationNotPending(status);
    return { ok: true, value: row };
  }

  /**
   * Joins (a new membership, a revoked one revived, or the `invited` one SCIM provisioning made
   * activated), assigns the proposed role (none on a provisioning invitation), writes the profile
   * and marks the invitation accepted.
   */
  private async join(trx: Knex.Transaction, row: InvitationRow, accountId: string) {
    const existing = await this.memberships.findByAccount(row.orgId, accountId, trx);
    if (existing && existing.status !== 'revoked' && existing.status !== 'invited') throw membersErrors.alreadyMember(existing.status);
    const member = await this.memberships.join(row.orgId, accountId, 'Member', trx);
    const { assignments, membershipType } = row.roleId
      ? await this.assignments.assign(trx, { orgId: row.orgId, membershipId: member.id, roleId: row.roleId, member })
        .then(({ assignment, membershipType: type }) => ({ assignments: [assignment], membershipType: type }))
      : await this.assignments.accessOf(row.orgId, [member.id], trx)
        .then((access) => ({ assignments: access.get(member.id)?.Roles ?? [], membershipType: access.get(member.id)?.MembershipType ?? 'Member' as const }));
    const manager = row.reportingManagerId ? await this.memberships.findById(row.orgId, row.reportingManagerId, trx) : undefined;
    const now = this.clock.now();
    const profile = {
      orgId: row.orgId, reportingManagerId: manager?.status === 'active' ? manager.id : null,
      boardChairman: row.boardChairman, boardSharePercent: row.boardSharePercent, updatedAt: now,
    };
    const before = (await trx('members.profiles').where({ orgId: row.orgId, membershipId: member.id }).first('reportingManagerId')) as { reportingManagerId: string | null } | undefined;
    await trx('members.profiles').insert({ membershipId: member.id, title: null, ...profile }).onConflict('membership_id').merge(profile);
    const previousManagerId = before?.reportingManagerId ?? null;
    if (previousManagerId !== profile.reportingManagerId) {
      const changed = { orgId: row.orgId, connectedIdId: member.id, managerId: profile.reportingManagerId, previousManagerId };
      for (const hook of this.managerHooks) await hook(changed, trx);
    }
    await trx('members.invitations').where({ id: row.id }).update({ status: 'accepted', respondedAt: now, membershipId: member.id, updatedAt: now });
    const isDirector = row.roleKey !== null && isDirectorRoleKey(row.roleKey);
    await this.audit.append(trx, {
      orgId: row.orgId, eventType: 'org.member.invitation_accepted', actor: { type: 'account', id: accountId },
      businessData: { invitationId: row.id, connectedIdId: member.id, accountId, roleId: row.roleId, roleKey: row.roleKey, membershipType },
    });
    let director: DirectorAccepted | undefined;
    if (isDirector) {
      director = {
        orgId: row.orgId, invitationId: row.id, connectedIdId: member.id, accountId, roleKey: row.roleKey as DirectorAccepted['roleKey'],
        boardChairman: row.boardChairman ?? false, boardSharePercent: row.boardSharePercent === null ? null : Number(row.boardSharePercent), invitedBy: row.invitedBy,
      };
      for (const hook of this.directorHooks) await hook(director, trx);
      await this.audit.append(trx, { orgId: row.orgId, eventType: 'org.member.director_accepted', actor: { type: 'account', id: accountId }, businessData: { ...director } });
    }
    return { member, type: membershipType, roles: assignments, director };
  }

  private published(director: DirectorAccepted | undefined): void {
    if (director) this.events.emit({ type: 'org.member.director_accepted', orgId: director.orgId, payload: { ...director } });
  }

  private async answer(orgId: string, joined: { member: MembershipDto; type: MembershipType; roles: AssignmentDto[] }): Promise<AcceptedDto> {
    const org = await this.organizations.findById(orgId);
    return {
      Organization: { id: orgId, slug: org?.slug ?? '', name: org?.name ?? '', type: org?.type ?? '' },
      Member: { ConnectedIdId: joined.member.id, Role: joined.member.role, Status: joined.member.status, MembershipType: joined.type, Roles: joined.roles },
    };
  }
}
