import { AerieError, conflict, notFound } from '../../core/index.ts';
import type { SodConflict } from '../../core/index.ts';

/**
 * 403 `SOD_CONFLICT`: an assignment would leave a member holding both halves of a forbidden pair.
 * Carries the first pair as `pair` and all of them as `conflicts`; `audit` is what the caller seals
 * as `auth.sod.assignment_blocked` after its transaction rolled back.
 * @see spec 01 "Role and permission" (separation of duties)
 */
export class SodConflictError extends AerieError {
  static readonly code = 'SOD_CONFLICT';
  constructor(
    readonly conflicts: readonly SodConflict[],
    readonly audit: { orgId: string; businessData: Record<string, unknown> },
  ) {
    const [first] = conflicts;
    super(403, SodConflictError.code, `Separation of duties: one member may not hold both ${first.a} and ${first.b}.`, {
      pair: { a: first.a, b: first.b },
      conflicts: conflicts.map((c) => ({ a: c.a, b: c.b, introduced: c.introduced ?? true })),
    });
    this.name = 'SodConflictError';
  }
}

/** Error codes of the rbac plugin (documented in docs/api/roles.md). */
export const rbacErrors = {
  roleNotFound: () => notFound('Role not found.', 'ROLE_NOT_FOUND'),
  templateNotFound: () => notFound('Permission not found on this role.', 'PERMISSION_NOT_FOUND'),
  assignmentNotFound: () => notFound('Role assignment not found.', 'ASSIGNMENT_NOT_FOUND'),
  memberNotFound: () => notFound('Member not found.', 'MEMBER_NOT_FOUND'),
  memberNotActive: (status: string) => conflict(`The member is ${status}.`, 'MEMBER_NOT_ACTIVE', { status }),
  roleKeyTaken: (roleKey: string) => conflict(`The role key "${roleKey}" is already used in this organization.`, 'ROLE_KEY_TAKEN', { roleKey }),
  roleKeyReserved: (roleKey: string) =>
    new AerieError(400, 'ROLE_KEY_RESERVED', `The role key "${roleKey}" is reserved for preset roles.`, { field: 'RoleKey', roleKey }),
  presetRole: (roleKey: string, what: string) =>
    conflict(`${roleKey} is a preset role: its ${what} cannot be changed.`, 'PRESET_ROLE', { roleKey }),
  roleInUse: (assignments: number) =>
    conflict('The role is assigned to members; take it away from them first (or deactivate the role).', 'ROLE_IN_USE', { assignments }),
  roleInactive: () => conflict('The role is inactive and cannot be assigned.', 'ROLE_INACTIVE'),
  permissionExists: (scope: string) => conflict(`The role already has ${scope}.`, 'PERMISSION_EXISTS', { scope }),
  unknownScope: (scope: string) =>
    new AerieError(400, 'UNKNOWN_SCOPE', `No enabled plugin declares the scope of "${scope.slice(0, 100)}".`, { field: 'Scope', scope: scope.slice(0, 100) }),
  scopeNotAllowed: (scope: string) =>
    new AerieError(400, 'SCOPE_NOT_ALLOWED', `"${scope.slice(0, 100)}" is outside the resources roles may carry.`, { field: 'Scope', scope: scope.slice(0, 100) }),
  directorOrgType: (orgType: string) =>
    new AerieError(400, 'DIRECTOR_ORG_TYPE', 'Directors are only possible in Corporation and Project organizations.', { field: 'RoleId', orgType }),
  unknownVariable: (name: string) =>
    new AerieError(400, 'VALIDATION_FAILED', `The role has no variable "${name}".`, { field: `Variables.${name}` }),
};
