import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type AuthzService, type Clock, type Database } from '../../core/index.ts';
import { checkAssignment, findSodConflicts, hasUnfilledValue, parseScope, type SodConflict } from '../../core/index.ts';
import { orgsRefs, type MembershipDto, type MembershipsService } from '../orgs/api.ts';
import { rbacRefs } from './api.ts';
import type { RolesService } from './roles.service.ts';
import { compileTemplates, variablesKey, variablesOf } from './role-compile.ts';
import { membershipTypeOf, type MembershipType } from './membership-type.ts';
import { lockMembers, recomputeAccess } from './member-access.ts';
import { assignMany, unassignMany, type BulkDeps } from './bulk-assignments.ts';
import { DEFAULT_MEMBER_GRANTS } from './default-grants.ts';
import { rbacErrors, SodConflictError } from './errors.ts';
import type { AssignmentsService as AssignmentsServiceApi } from './service-interfaces.ts';

type Db = Knex | Knex.Transaction;

/** A role assignment as clients see it. @see docs/api/roles.md "Assignments" */
export interface AssignmentDto {
  ConnectedIdRoleId: string;
  ConnectedIdId: string;
  RoleId: string;
  RoleKey: string;
  Variables: Record<string, string>;
  /** The snapshot: the scopes this assignment grants, fixed at assignment time. */
  Permissions: string[];
  AssignedAt: string;
  SnapshottedAt: string;
}

/** What a member holds: their assignments, the union of their grants and their membership type. */
export interface MemberAccessDto {
  MembershipType: MembershipType;
  Roles: AssignmentDto[];
  /** Default grant ∪ every snapshot (Owner and Admin hold everything regardless). */
  Grants: string[];
}

/** Who is assigning: their membership (for the Owner/Admin exemptions) and, for members, their grants. */
export interface Assigner {
  accountId?: string;
  /** The assigner's membership role as the request's organization context carries it (orgs' `MembershipRole`). */
  role?: string;
  /** The assigner's grants when they are a plain member; they may only pass on what they hold. */
  grants?: readonly string[];
}

interface AssignmentRow {
  id: string;
  orgId: string;
  membershipId: string;
  roleId: string;
  variables: Record<string, string>;
  variablesKey: string;
  grants: string[];
  assignedBy: string | null;
  assignedAt: Date;
  snapshottedAt: Date;
  roleKey?: string;
}

/**
 * `rbac.assignments`: assigning roles to members and what members then hold.
 *
 * Snapshot rule: an assignment stores the scopes its role compiled to at that moment. Editing the
 * role later (adding or removing permissions, deactivating it) leaves existing snapshots as they
 * are; assigning the same role with the same variables to the same member again re-snapshots it
 * (same `ConnectedIdRoleId`, separation of duties checked again). Unassigning drops the snapshot.
 *
 * Separation of duties: an assignment to a plain member is refused (403 `SOD_CONFLICT`) when the
 * union of what they hold and what it adds holds both halves of a forbidden pair — including pairs
 * they already held. Owner and Admin are exempt. A refusal is sealed as
 * `auth.sod.assignment_blocked` by {@link AssignmentsService.withSodAudit}.
 *
 * @see docs/api/roles.md
 */
@injectable()
export class AssignmentsService implements AssignmentsServiceApi {

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
    @inject(orgsRefs.memberships.id) private readonly memberships: MembershipsService,
    @inject(coreRefs.authz.id) private readonly authz: AuthzService,
  ) {}


  /**
   * Runs `fn` in a transaction; when it throws {@link SodConflictError}, the refusal is sealed as
   * `auth.sod.assignment_blocked` in a transaction of its own (the assignment's rolled back), then
   * the error is rethrown.
   */
  async withSodAudit<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } catch (err) {
      if (err instanceof SodConflictError) {
        await this.db.transaction((trx) => this.audit.appendMany(trx, [err.audit, ...err.more].map((a) => ({ orgId: a.orgId, eventType: 'auth.sod.assignment_blocked', businessData: a.businessData }))));
      }
      throw err;
    }
  }

  /**
   * Assigns `roleId` to membership `membershipId` with `variables`, inside `trx`.
   * @returns the assignment, whether it was created (false: re-snapshotted), and the new membership type
   * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND`, 409 `ROLE_INACTIVE` / `MEMBER_NOT_ACTIVE`,
   *   400 `VALIDATION_FAILED` (unknown variable), 403 `PERMISSION_DENIED` (a plain member passing on
   *   a scope they do not hold), 403 `SOD_CONFLICT`
   */
  async assign(
    trx: Knex.Transaction,
    input: { orgId: string; membershipId: string; roleId: string; variables?: Record<string, string>; assigner?: Assigner; member?: MembershipDto },
  ): Promise<{ assignment: AssignmentDto; created: boolean; membershipType: MembershipType }> {
    const { orgId, membershipId, roleId } = input;
    const variables = input.variables ?? {};
    const role = await this.roles.find(orgId, roleId, trx);
    if (!role) throw rbacErrors.roleNotFound();
    const member = input.member ?? (await this.memberships.findById(orgId, membershipId, trx));
    if (!member) throw rbacErrors.memberNotFound();
    if (member.status !== 'active') throw rbacErrors.memberNotActive(member.status);
    if (!role.isActive) throw rbacErrors.roleInactive();
    const templates = await this.roles.templateScopes(orgId, roleId, trx);
    const known = new Set(variablesOf(templates));
    for (const name of Object.keys(variables)) if (!known.has(name)) throw rbacErrors.unknownVariable(name);
    const grants = compileTemplates(templates, variables);
    this.assertAssignerHolds(input.assigner, grants);

    // Lock the member's access row (or its absence, through the membership row lock) so two
    // concurrent assignments cannot both pass the separation-of-duties check.
    await lockMembers(trx, [membershipId]);
    const key = variablesKey(variables);
    const current = (await trx('rbac.role_assignments').where({ orgId, membershipId })) as AssignmentRow[];
    const existing = current.find((a) => a.roleId === roleId && a.variablesKey === key);
    if (member.role === 'Member') {
      const held = [...DEFAULT_MEMBER_GRANTS, ...current.filter((a) => a !== existing).flatMap((a) => a.grants)];
      const conflicts = checkAssignment(held, grants);
      if (conflicts.length > 0) {
        throw new SodConflictError(conflicts, {
          orgId,
          businessData: {
            connectedIdId: membershipId, accountId: member.accountId, roleId, roleKey: role.roleKey,
            pairs: conflicts.map((c) => ({ a: c.a, b: c.b, introduced: c.introduced ?? true })),
          },
        });
      }
    }
    const now = this.clock.now();
    let row: AssignmentRow;
    if (existing) {
      [row] = (await trx('rbac.role_assignments').where({ id: existing.id }).update({ grants: JSON.stringify(grants), snapshottedAt: now, assignedBy: input.assigner?.accountId ?? null }).returning('*')) as AssignmentRow[];
    } else {
      [row] = (await trx('rbac.role_assignments').insert({
        id: randomUUID(), orgId, membershipId, roleId, variables: JSON.stringify(variables), variablesKey: key, grants: JSON.stringify(grants),
        assignedBy: input.assigner?.accountId ?? null, assignedAt: now, snapshottedAt: now,
      }).returning('*')) as AssignmentRow[];
    }
    const membershipType = await this.recompute(trx, orgId, membershipId);
    await this.audit.append(trx, {
      orgId, eventType: 'org.role.assigned',
      businessData: { connectedIdId: membershipId, connectedIdRoleId: row.id, accountId: member.accountId, roleId, roleKey: role.roleKey, variables, permissions: grants, resnapshot: !!existing, membershipType },
    });
    return { assignment: toDto({ ...row, roleKey: role.roleKey }), created: !existing, membershipType };
  }

  /** Gives a role to many members at once, inside `trx` (see {@link assignMany}). */
  assignMany(trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds: readonly string[] }): Promise<{ added: string[] }> {
    return assignMany(this.bulkDeps(), trx, input);
  }

  /** Takes a role away from many members (or all) at once, inside `trx` (see {@link unassignMany}). */
  unassignMany(trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds?: readonly string[] }): Promise<{ removed: string[] }> {
    return unassignMany(this.bulkDeps(), trx, input);
  }

  /**
   * Checks, before an invitation is sent, that `roleId` could be assigned to a new plain member by
   * `assigner`: the role exists and is active, the assigner holds what it grants, and it does not
   * hold a forbidden pair by itself (compiled without variables).
   * @throws 404 `ROLE_NOT_FOUND`, 409 `ROLE_INACTIVE`, 403 `PERMISSION_DENIED`, 403 `SOD_CONFLICT`
   */
  async preflight(orgId: string, roleId: string, assigner?: Assigner, trx?: Db): Promise<{ roleId: string; roleKey: string; name: string }> {
    const role = await this.roles.find(orgId, roleId, trx);
    if (!role) throw rbacErrors.roleNotFound();
    if (!role.isActive) throw rbacErrors.roleInactive();
    const grants = compileTemplates(await this.roles.templateScopes(orgId, roleId, trx), {});
    this.assertAssignerHolds(assigner, grants);
    const conflicts = checkAssignment(DEFAULT_MEMBER_GRANTS, grants);
    if (conflicts.length > 0) throw new SodConflictError(conflicts, { orgId, businessData: { roleId, roleKey: role.roleKey, stage: 'invitation' } });
    return { roleId: role.id, roleKey: role.roleKey, name: role.name };
  }

  /**
   * Checks that `assigner` could grant role `roleId` (a plain member only what they hold): what
   * cancelling or re-sending an invitation for that role requires, as inviting does. A role that no
   * longer exists grants nothing, so anyone who may invite passes.
   * @throws 403 `PERMISSION_DENIED` with `required` (the first permission the assigner lacks)
   */
  async assertMayGrant(orgId: string, roleId: string, assigner: Assigner, trx?: Db): Promise<void> {
    if (assigner.role !== 'Member') return;
    const role = await this.roles.find(orgId, roleId, trx);
    if (!role) return;
    this.assertAssignerHolds(assigner, compileTemplates(await this.roles.templateScopes(orgId, roleId, trx), {}));
  }

  /**
   * Takes assignment `connectedIdRoleId` (of role `roleId`) away. @throws 404 `ROLE_NOT_FOUND` / `ASSIGNMENT_NOT_FOUND`
   * @returns the member's new membership type
   */
  async unassign(orgId: string, roleId: string, connectedIdRoleId: string): Promise<{ membershipType: MembershipType }> {
    return this.db.transaction(async (trx) => {
      const role = await this.roles.find(orgId, roleId, trx);
      if (!role) throw rbacErrors.roleNotFound();
      const row = (await trx('rbac.role_assignments').where({ orgId, roleId, id: connectedIdRoleId }).first()) as AssignmentRow | undefined;
      if (!row) throw rbacErrors.assignmentNotFound();
      await lockMembers(trx, [row.membershipId]);
      await trx('rbac.role_assignments').where({ id: row.id }).delete();
      const membershipType = await this.recompute(trx, orgId, row.membershipId);
      await this.audit.append(trx, {
        orgId, eventType: 'org.role.unassigned',
        businessData: { connectedIdId: row.membershipId, connectedIdRoleId: row.id, roleId, roleKey: role.roleKey, membershipType },
      });
      return { membershipType };
    });
  }

  /**
   * Drops every assignment of a member, inside the caller's transaction: on revoke (the access row
   * stays, emptied, its version bumped, since a revoked membership can be re-activated with the same
   * id) or on delete (`forget`: the row goes too; membership ids are never reused).
   */
  async clear(trx: Knex.Transaction, orgId: string, membershipId: string, options: { forget?: boolean } = {}): Promise<void> {
    await trx('rbac.role_assignments').where({ orgId, membershipId }).delete();
    if (options.forget) await trx('rbac.member_access').where({ orgId, membershipId }).delete();
    else await this.recompute(trx, orgId, membershipId);
  }

  /** What each of `membershipIds` (of `orgId`) holds; members without assignments get `Member` and the default grant. */
  async accessOf(orgId: string, membershipIds: readonly string[], trx?: Db): Promise<Map<string, MemberAccessDto>> {
    const out = new Map<string, MemberAccessDto>();
    if (membershipIds.length === 0) return out;
    const rows = (await (trx ?? this.db.knex)('rbac.role_assignments as a')
      .join('rbac.roles as r', 'r.id', 'a.roleId')
      .where('a.orgId', orgId).whereIn('a.membershipId', membershipIds as string[])
      .select('a.*', 'r.roleKey').orderBy([{ column: 'a.assignedAt' }, { column: 'a.id' }])) as AssignmentRow[];
    for (const id of membershipIds) {
      const mine = rows.filter((r) => r.membershipId === id);
      out.set(id, {
        MembershipType: membershipTypeOf(mine.map((r) => r.roleKey!)),
        Roles: mine.map(toDto),
        Grants: [...new Set([...DEFAULT_MEMBER_GRANTS, ...mine.flatMap((r) => r.grants)])],
      });
    }
    return out;
  }

  /**
   * Members holding both halves of a forbidden pair now (Owner and Admin are exempt and left out).
   * @returns one finding per member and pair
   */
  async sodFindings(orgId: string): Promise<Array<{ connectedIdId: string; accountId: string; conflict: SodConflict }>> {
    const members = await this.memberships.list(orgId, ['active', 'suspended']);
    const plain = members.filter((m) => m.role === 'Member');
    const access = await this.accessOf(orgId, plain.map((m) => m.id));
    return plain.flatMap((m) => findSodConflicts(access.get(m.id)!.Grants).map((conflict) => ({ connectedIdId: m.id, accountId: m.accountId, conflict })));
  }

  /** Seals one `auth.sod.conflict_detected` per finding (a scan). */
  async recordFindings(orgId: string, findings: ReadonlyArray<{ connectedIdId: string; accountId: string; conflict: SodConflict }>): Promise<void> {
    if (findings.length === 0) return;
    await this.db.transaction((trx) => this.audit.appendMany(trx, findings.map((f) => ({
      orgId, eventType: 'auth.sod.conflict_detected',
      businessData: { connectedIdId: f.connectedIdId, accountId: f.accountId, a: f.conflict.a, b: f.conflict.b },
    }))));
  }

  /**
   * A plain member may only pass on scopes they hold themselves: every compiled scope that grants
   * something must be granted by the assigner's own grants (`PERMISSION_DENIED` names the first one).
   */
  private assertAssignerHolds(assigner: Assigner | undefined, grants: readonly string[]): void {
    if (!assigner || assigner.role !== 'Member') return;
    const held = this.authz.setOf(assigner.grants ?? []);
    for (const g of grants) {
      if (!hasUnfilledValue(parseScope(g)) && !held.has(g)) throw rbacErrors.grantNotHeld(g, 'assign roles whose permissions');
    }
  }

  private bulkDeps(): BulkDeps {
    return { audit: this.audit, clock: this.clock, roles: this.roles };
  }

  /** Rebuilds the member's access row (grant union, type, version) from their assignments. */
  private async recompute(trx: Knex.Transaction, orgId: string, membershipId: string): Promise<MembershipType> {
    return (await recomputeAccess(trx, orgId, [membershipId], this.clock.now())).get(membershipId)!;
  }
}

function toDto(r: AssignmentRow): AssignmentDto {
  return {
    ConnectedIdRoleId: r.id, ConnectedIdId: r.membershipId, RoleId: r.roleId, RoleKey: r.roleKey ?? '', Variables: r.variables,
    Permissions: r.grants, AssignedAt: new Date(r.assignedAt).toISOString(), SnapshottedAt: new Date(r.snapshottedAt).toISOString(),
  };
}
