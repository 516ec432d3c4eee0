import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { checkAssignment, type AuditService, type Clock } from '../../core/index.ts';
import type { RolesService } from './roles.service.ts';
import { compileTemplates, variablesKey } from './role-compile.ts';
import { DEFAULT_MEMBER_GRANTS } from './default-grants.ts';
import { lockMembers, recomputeAccess } from './member-access.ts';
import { rbacErrors, SodConflictError, type SodAudit } from './errors.ts';

/** What the bulk paths need from the assignments service. */
export interface BulkDeps {
  audit: AuditService;
  clock: Clock;
  roles: RolesService;
}

/** Rows inserted per statement (10 columns each, well under PostgreSQL's 65,535 parameters). */
const CHUNK = 1000;

/**
 * Gives role `roleId` (without variables) to every member of `membershipIds` that holds no
 * assignment of it yet, inside `trx` — the rules of a single assignment, checked for all before
 * anything is written: the role exists and is active, every member is an active member of `orgId`,
 * and no plain member would hold both halves of a forbidden pair (Owner and Admin are exempt).
 * Members already holding the role keep their assignment as it is (no re-snapshot).
 * One `org.role.assigned` per new assignment.
 * @returns the membership ids newly assigned, in the order given
 * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND`, 409 `ROLE_INACTIVE` / `MEMBER_NOT_ACTIVE`,
 *   403 `SOD_CONFLICT` ({@link SodConflictError} with one audit per blocked member)
 * @see docs/api/roles.md "Assignments", "Separation of duties"
 */
export async function assignMany(deps: BulkDeps, trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds: readonly string[] }): Promise<{ added: string[] }> {
  const { orgId, roleId } = input;
  const role = await deps.roles.find(orgId, roleId, trx);
  if (!role) throw rbacErrors.roleNotFound();
  if (!role.isActive) throw rbacErrors.roleInactive();
  const ids = [...new Set(input.membershipIds)];
  if (ids.length === 0) return { added: [] };
  const members = new Map<string, { accountId: string; role: string; status: string }>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = (await trx('orgs.member_directory').where('org_id', orgId).whereIn('membership_id', ids.slice(i, i + CHUNK))
      .select('membership_id', 'account_id', 'role', 'status')) as Array<{ membershipId: string; accountId: string; role: string; status: string }>;
    for (const r of rows) members.set(r.membershipId, r);
  }
  for (const id of ids) {
    const m = members.get(id);
    if (!m) throw rbacErrors.memberNotFound();
    if (m.status !== 'active') throw rbacErrors.memberNotActive(m.status);
  }
  const grants = compileTemplates(await deps.roles.templateScopes(orgId, roleId, trx), {});

  await lockMembers(trx, ids);
  const current = (await trx('rbac.role_assignments').where({ orgId }).whereIn('membershipId', ids).select('membershipId', 'roleId', 'grants')) as Array<{ membershipId: string; roleId: string; grants: string[] }>;
  const holders = new Set(current.filter((a) => a.roleId === roleId).map((a) => a.membershipId));
  const added = ids.filter((id) => !holders.has(id));

  const blocked: Array<{ conflicts: ReturnType<typeof checkAssignment>; audit: SodAudit }> = [];
  for (const id of added) {
    const m = members.get(id)!;
    if (m.role !== 'Member') continue;
    const held = [...DEFAULT_MEMBER_GRANTS, ...current.filter((a) => a.membershipId === id).flatMap((a) => a.grants)];
    const conflicts = checkAssignment(held, grants);
    if (conflicts.length > 0) {
      blocked.push({
        conflicts,
        audit: { orgId, businessData: { connectedIdId: id, accountId: m.accountId, roleId, roleKey: role.roleKey, pairs: conflicts.map((c) => ({ a: c.a, b: c.b, introduced: c.introduced ?? true })) } },
      });
    }
  }
  if (blocked.length > 0) throw new SodConflictError(blocked[0]!.conflicts, blocked[0]!.audit, blocked.slice(1).map((b) => b.audit));
  if (added.length === 0) return { added };

  const now = deps.clock.now();
  const rows = added.map((membershipId) => ({
    id: randomUUID(), orgId, membershipId, roleId, variables: '{}', variablesKey: variablesKey({}), grants: JSON.stringify(grants),
    assignedBy: null, assignedAt: now, snapshottedAt: now,
  }));
  for (let i = 0; i < rows.length; i += CHUNK) await trx('rbac.role_assignments').insert(rows.slice(i, i + CHUNK));
  const types = await recomputeAccess(trx, orgId, added, now);
  await deps.audit.appendMany(trx, rows.map((r) => ({
    orgId, eventType: 'org.role.assigned',
    businessData: {
      connectedIdId: r.membershipId, connectedIdRoleId: r.id, accountId: members.get(r.membershipId)!.accountId, roleId, roleKey: role.roleKey,
      variables: {}, permissions: grants, resnapshot: false, membershipType: types.get(r.membershipId)!,
    },
  })));
  return { added };
}

/**
 * Takes role `roleId` away from members of `orgId`, inside `trx`: every assignment of it (whatever
 * its variables) held by `membershipIds`, or by everyone when `membershipIds` is omitted. Members
 * not holding it are skipped. One `org.role.unassigned` per assignment removed.
 * @returns the membership ids that lost the role
 * @throws 404 `ROLE_NOT_FOUND`
 */
export async function unassignMany(deps: BulkDeps, trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds?: readonly string[] }): Promise<{ removed: string[] }> {
  const { orgId, roleId } = input;
  const role = await deps.roles.find(orgId, roleId, trx);
  if (!role) throw rbacErrors.roleNotFound();
  const scoped = (q: Knex.QueryBuilder) => (input.membershipIds ? q.whereIn('membershipId', [...new Set(input.membershipIds)]) : q);
  const targets = [...new Set(((await scoped(trx('rbac.role_assignments').where({ orgId, roleId })).select('membershipId')) as Array<{ membershipId: string }>).map((r) => r.membershipId))];
  if (targets.length === 0) return { removed: [] };
  await lockMembers(trx, targets);
  const deleted = (await trx('rbac.role_assignments').where({ orgId, roleId }).whereIn('membershipId', targets).delete().returning(['id', 'membershipId'])) as Array<{ id: string; membershipId: string }>;
  const removed = [...new Set(deleted.map((r) => r.membershipId))];
  const types = await recomputeAccess(trx, orgId, removed, deps.clock.now());
  await deps.audit.appendMany(trx, deleted.map((r) => ({
    orgId, eventType: 'org.role.unassigned',
    businessData: { connectedIdId: r.membershipId, connectedIdRoleId: r.id, roleId, roleKey: role.roleKey, membershipType: types.get(r.membershipId)! },
  })));
  return { removed };
}
