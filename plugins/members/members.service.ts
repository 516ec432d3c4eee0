import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import { accountsRefs, type AccountsService } from '../accounts/api.ts';
import { orgsRefs, type MembershipDto, type MembershipRole, type MembershipsService } from '../orgs/api.ts';
import { rbacRefs, type AssignmentDto, type AssignmentsService, type MembershipType } from '../rbac/api.ts';
import { membersExtensions, type ManagerChangedHook } from './api.ts';
import { membersErrors } from './errors.ts';
import type { MembersService as MembersServiceApi } from './service-interfaces.ts';

/** A member as clients see it. @see docs/api/members.md "The member object" */
export interface MemberDto {
  ConnectedIdId: string;
  AccountId: string;
  Email: string | null;
  DisplayName: string | null;
  Role: MembershipRole;
  Status: MembershipDto['status'];
  MembershipType: MembershipType;
  Roles: AssignmentDto[];
  ReportingManagerId: string | null;
  Title: string | null;
  BoardChairman: boolean | null;
  BoardSharePercent: number | null;
  JoinedAt: string;
  UpdatedAt: string;
}

/** `PATCH /members/{connectedIdId}` body. */
export interface MemberPatch {
  Role?: 'Admin' | 'Member';
  Status?: 'active';
  ReportingManagerId?: string | null;
  Title?: string | null;
  BoardChairman?: boolean;
  BoardSharePercent?: number | null;
}

/** Who acts: their membership role (Owner/Admin may act on Admins and change roles). */
export interface Actor {
  accountId?: string;
  /** The actor's membership role as the request's organization context carries it (orgs' `MembershipRole`). */
  role?: string;
}

interface ProfileRow {
  membershipId: string;
  orgId: string;
  reportingManagerId: string | null;
  title: string | null;
  boardChairman: boolean | null;
  boardSharePercent: string | number | null;
}

/**
 * `members.members`: list, edit, suspend, revoke and delete members. Memberships change through
 * `orgs.memberships`, role assignments through `rbac.assignments`.
 *
 * - suspend: status `suspended`; role assignments are kept (they apply again on re-activation,
 *   `PATCH {Status:"active"}`); the member is refused on their next request.
 * - revoke: status `revoked`; role assignments are dropped; refused on the next request; final
 *   (a new invitation re-activates the same membership id, with the invitation's role only).
 * - delete: the membership, its assignments and profile are removed.
 * The Owner is protected from all of these; only an Owner or Admin may act on an Admin or change
 * a member's `Role`. Sessions are not touched: the member keeps their account and other organizations.
 * @see docs/api/members.md
 */
@injectable()
export class MembersService implements MembersServiceApi {

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject(membersExtensions.managerChanged.id) private readonly managerHooks: readonly ManagerChangedHook[],
  ) {}


  /** Members of `orgId` (every status unless filtered), oldest first. */
  async list(orgId: string, status?: MembershipDto['status']): Promise<MemberDto[]> {
    const rows = await this.memberships.list(orgId, status ? [status] : undefined);
    return this.toDtos(orgId, rows);
  }

  /** One member. @throws 404 `MEMBER_NOT_FOUND` */
  async get(orgId: string, id: string): Promise<MemberDto> {
    const row = await this.memberships.findById(orgId, id);
    if (!row) throw membersErrors.memberNotFound();
    return (await this.toDtos(orgId, [row]))[0];
  }

  /**
   * Edits a member. @throws 404 `MEMBER_NOT_FOUND`, 409 `OWNER_PROTECTED` / `MEMBER_REVOKED`,
   *   403 `PERMISSION_DENIED` (role change or Admin target by a plain member), 400 `VALIDATION_FAILED`
   */
  async update(orgId: string, id: string, patch: MemberPatch, actor: Actor): Promise<MemberDto> {
    await this.db.transaction(async (trx) => {
      const target = await this.target(trx, orgId, id, actor);
      const changes: string[] = [];
      if (patch.Role !== undefined && patch.Role !== target.role) {
        if (target.role === 'Owner') throw membersErrors.ownerProtected();
        if (actor.role === 'Member') throw membersErrors.adminOnly();
        await this.memberships.setRole(orgId, id, patch.Role, trx);
        changes.push('Role');
      }
      if (patch.Status === 'active' && target.status !== 'active') {
        if (target.status === 'revoked') throw membersErrors.memberRevoked();
        await this.memberships.setStatus(orgId, id, 'active', trx);
        await this.audit.append(trx, { orgId, eventType: 'org.member.reactivated', businessData: { connectedIdId: id, accountId: target.accountId } });
        changes.push('Status');
      }
      const profile: Partial<ProfileRow> = {};
      if (patch.ReportingManagerId !== undefined) {
        if (patch.ReportingManagerId === id) throw membersErrors.selfManager();
        if (patch.ReportingManagerId !== null) {
          const manager = await this.memberships.findById(orgId, patch.ReportingManagerId, trx);
          if (!manager || manager.status !== 'active') throw membersErrors.memberNotFound('ReportingManagerId');
        }
        profile.reportingManagerId = patch.ReportingManagerId;
      }
      if (patch.Title !== undefined) profile.title = patch.Title;
      if (patch.BoardChairman !== undefined) profile.boardChairman = patch.BoardChairman;
      if (patch.BoardSharePercent !== undefined) profile.boardSharePercent = patch.BoardSharePercent;
      if (Object.keys(profile).length > 0) {
        const now = this.clock.now();
        const before = (await trx('members.profiles').where({ orgId, membershipId: id }).first('reportingManagerId')) as { reportingManagerId: string | null } | undefined;
        const previousManagerId = before?.reportingManagerId ?? null;
        if (profile.reportingManagerId !== undefined && profile.reportingManagerId !== previousManagerId) {
          const changed = { orgId, connectedIdId: id, managerId: profile.reportingManagerId, previousManagerId };
          for (const hook of this.managerHooks) await hook(changed, trx);
        }
        await trx('members.profiles').insert({ membershipId: id, orgId, reportingManagerId: null, title: null, boardChairman: null, boardSharePercent: null, ...profile, updatedAt: now })
          .onConflict('membership_id').merge({ ...profile, updatedAt: now });
        changes.push(...Object.keys(profile));
      }
      if (changes.length > 0) {
        await this.audit.append(trx, { orgId, eventType: 'org.member.updated', businessData: { connectedIdId: id, accountId: target.accountId, changes, ...(patch.Role ? { role: patch.Role } : {}) } });
      }
    });
    return this.get(orgId, id);
  }

  /** Suspends an active member. @throws 404, 409 `OWNER_PROTECTED` / `MEMBER_NOT_ACTIVE`, 403 */
  async suspend(orgId: string, id: string, actor: Actor): Promise<MemberDto> {
    await this.db.transaction(async (trx) => {
      const target = await this.target(trx, orgId, id, actor, true);
      if (target.status !== 'active') throw membersErrors.memberNotActive(target.status);
      await this.memberships.setStatus(orgId, id, 'suspended', trx);
      await this.audit.append(trx, { orgId, eventType: 'org.member.suspended', businessData: { connectedIdId: id, accountId: target.accountId } });
    });
    return this.get(orgId, id);
  }

  /** Revokes an active or suspended member and drops their role assignments. @throws 404, 409, 403 */
  async revoke(orgId: string, id: string, actor: Actor): Promise<MemberDto> {
    await this.db.transaction(async (trx) => {
      const target = await this.target(trx, orgId, id, actor, true);
      if (target.status === 'revoked') throw membersErrors.memberNotActive(target.status);
      await this.memberships.setStatus(orgId, id, 'revoked', trx);
      await this.assignments.clear(trx, orgId, id);
      await this.audit.append(trx, { orgId, eventType: 'org.member.revoked', businessData: { connectedIdId: id, accountId: target.accountId } });
    });
    return this.get(orgId, id);
  }

  /** Deletes a membership with its assignments and profile. @throws 404, 409 `OWNER_PROTECTED`, 403 */
  async remove(orgId: string, id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (trx) => {
      const target = await this.target(trx, orgId, id, actor, true);
      await this.assignments.clear(trx, orgId, id, { forget: true });
      await trx('members.profiles').where({ orgId, membershipId: id }).delete();
      await trx('members.profiles').where({ orgId, reportingManagerId: id }).update({ reportingManagerId: null });
      await this.memberships.remove(orgId, id, trx);
      await this.audit.append(trx, { orgId, eventType: 'org.member.deleted', businessData: { connectedIdId: id, accountId: target.accountId } });
    });
  }

  /** The target membership, with the Owner and Admin protections applied. */
  private async target(trx: Knex.Transaction, orgId: string, id: string, actor: Actor, lifecycle = false): Promise<MembershipDto> {
    const target = await this.memberships.findById(orgId, id, trx);
    if (!target) throw membersErrors.memberNotFound();
    if (lifecycle && target.role === 'Owner') throw membersErrors.ownerProtected();
    if (target.role === 'Admin' && actor.role === 'Member') throw membersErrors.adminOnly();
    return target;
  }

  private async toDtos(orgId: string, rows: MembershipDto[]): Promise<MemberDto[]> {
    const ids = rows.map((r) => r.id);
    const access = await this.assignments.accessOf(orgId, ids);
    const profiles = (ids.length ? await this.db.knex('members.profiles').where({ orgId }).whereIn('membershipId', ids) : []) as ProfileRow[];
    return Promise.all(rows.map(async (r) => {
      const account = await this.accounts.findById(r.accountId);
      const p = profiles.find((x) => x.membershipId === r.id);
      const a = access.get(r.id)!;
      return {
        ConnectedIdId: r.id, AccountId: r.accountId, Email: account?.email ?? null, DisplayName: account?.displayName ?? null,
        Role: r.role, Status: r.status, MembershipType: a.MembershipType, Roles: a.Roles,
        ReportingManagerId: p?.reportingManagerId ?? null, Title: p?.title ?? null, BoardChairman: p?.boardChairman ?? null,
        BoardSharePercent: p?.boardSharePercent === undefined || p?.boardSharePercent === null ? null : Number(p.boardSharePercent),
        JoinedAt: new Date(r.createdAt).toISOString(), UpdatedAt: new Date(r.updatedAt).toISOString(),
      };
    }));
  }
}
