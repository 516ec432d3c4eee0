import { AerieError, aerieError, defineErrorCodes, permissionDenied, validationFailed } from '../../core/index.ts';
import type { SodConflict } from '../../core/index.ts';

/** The rbac plugin's own error codes (documented in docs/api/roles.md; the member ones also in members.md). */
export const rbacErrorCodes = defineErrorCodes('rbac', {
  ROLE_NOT_FOUND: { status: 404, description: "unknown role, or another organization's role" },
  PERMISSION_NOT_FOUND: { status: 404, description: 'the role has no permission with this id' },
  ASSIGNMENT_NOT_FOUND: { status: 404, description: 'unknown role assignment' },
  MEMBER_NOT_FOUND: { status: 404, description: "unknown member, or another organization's member" },
  MEMBER_NOT_ACTIVE: { status: 409, description: 'the member is suspended or revoked (`status`)' },
  ROLE_KEY_TAKEN: { status: 409, description: 'the role key is already used in this organization' },
  ROLE_KEY_RESERVED: { status: 400, description: 'the role key is reserved for preset roles' },
  PRESET_ROLE: { status: 409, description: 'a preset role cannot be changed this way' },
  ROLE_IN_USE: { status: 409, description: 'the role is assigned to members (`assignments`)' },
  ROLE_INACTIVE: { status: 409, description: 'the role is inactive and cannot be assigned' },
  PERMISSION_EXISTS: { status: 409, description: 'the role already has this scope expression' },
  UNKNOWN_SCOPE: { status: 400, description: 'no enabled plugin declares the scope' },
  SCOPE_NOT_ALLOWED: { status: 400, description: 'the scope is outside the resources roles may carry' },
  DIRECTOR_ORG_TYPE: { status: 400, description: 'a director role outside Corporation and Project organizations (`orgType`)' },
  SOD_CONFLICT: { status: 403, description: 'the change would break separation of duties (`pair`, `conflicts`)' },
});

type RbacErrorCodes = typeof rbacErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends RbacErrorCodes {}
}

/** One refusal as sealed in `auth.sod.assignment_blocked`. */
export interface SodAudit {
  orgId: string;
  businessData: Record<string, unknown>;
}

/**
 * 403 `SOD_CONFLICT`: an assignment would leave a member holding both halves of a forbidden pair.
 * Carries the first pair as `pair` and all of them as `conflicts`; `audit` is what the caller seals
 * as `auth.sod.assignment_blocked` after its transaction rolled back, and `more` the further refusals
 * of a bulk assignment (one event each, {@link SodAudit}).
 * @see docs/api/roles.md (separation of duties)
 */
export class SodConflictError extends AerieError {
  static readonly code = 'SOD_CONFLICT';
  constructor(
    readonly conflicts: readonly SodConflict[],
    readonly audit: SodAudit,
    readonly more: readonly SodAudit[] = [],
  ) {
    const [first] = conflicts;
    super(rbacErrorCodes.SOD_CONFLICT.status, SodConflictError.code, `Separation of duties: one member may not hold both ${first.a} and ${first.b}.`, {
      pair: { a: first.a, b: first.b },
      conflicts: conflicts.map((c) => ({ a: c.a, b: c.b, introduced: c.introduced ?? true })),
    });
    this.name = 'SodConflictError';
  }
}

/**
 * Errors about members and roles that rbac and the plugins requiring it (members, approvals) answer,
 * defined once here and exported through `api.ts`.
 */
export const memberErrors = {
  /** 404 `MEMBER_NOT_FOUND`; `field` names the body member that pointed at it (`ReportingManagerId`). */
  memberNotFound: (field?: string) => aerieError('MEMBER_NOT_FOUND', 'Member not found.', field ? { field } : {}),
  /** 409 `MEMBER_NOT_ACTIVE` with the member's `status`. */
  memberNotActive: (status: string) => aerieError('MEMBER_NOT_ACTIVE', `The member is ${status}.`, { status }),
  /** 400 `DIRECTOR_ORG_TYPE` with `orgType`. */
  directorOrgType: (orgType: string) =>
    aerieError('DIRECTOR_ORG_TYPE', 'Directors are only possible in Corporation and Project organizations.', { field: 'RoleId', orgType }),
  /** 404 `ROLE_NOT_FOUND`; `field` names the body member that pointed at it (`linkedRoleId`). */
  roleNotFound: (field?: string) => aerieError('ROLE_NOT_FOUND', 'Role not found.', field ? { field } : {}),
};

/** Errors of the rbac plugin. */
export const rbacErrors = {
  ...memberErrors,
  templateNotFound: () => aerieError('PERMISSION_NOT_FOUND', 'Permission not found on this role.'),
  assignmentNotFound: () => aerieError('ASSIGNMENT_NOT_FOUND', 'Role assignment not found.'),
  roleKeyTaken: (roleKey: string) => aerieError('ROLE_KEY_TAKEN', `The role key "${roleKey}" is already used in this organization.`, { roleKey }),
  roleKeyReserved: (roleKey: string) =>
    aerieError('ROLE_KEY_RESERVED', `The role key "${roleKey}" is reserved for preset roles.`, { field: 'RoleKey', roleKey }),
  presetRole: (roleKey: string, what: string) =>
    aerieError('PRESET_ROLE', `${roleKey} is a preset role: its ${what} cannot be changed.`, { roleKey }),
  roleInUse: (assignments: number) =>
    aerieError('ROLE_IN_USE', 'The role is assigned to members; take it away from them first (or deactivate the role).', { assignments }),
  roleInactive: () => aerieError('ROLE_INACTIVE', 'The role is inactive and cannot be assigned.'),
  permissionExists: (scope: string) => aerieError('PERMISSION_EXISTS', `The role already has ${scope}.`, { scope }),
  unknownScope: (scope: string) =>
    aerieError('UNKNOWN_SCOPE', `No enabled plugin declares the scope of "${scope.slice(0, 100)}".`, { field: 'Scope', scope: scope.slice(0, 100) }),
  scopeNotAllowed: (scope: string) =>
    aerieError('SCOPE_NOT_ALLOWED', `"${scope.slice(0, 100)}" is outside the resources roles may carry.`, { field: 'Scope', scope: scope.slice(0, 100) }),
  unknownVariable: (name: string) => validationFailed(`The role has no variable "${name}".`, `Variables.${name}`),
  /** Roles and assignments may only carry permissions the caller holds. */
  grantNotHeld: (scope: string, what: 'add permissions' | 'assign roles whose permissions') =>
    permissionDenied(scope, `You can only ${what} you hold yourself.`),
};
