/**
 * The rbac plugin's public API: service refs and types other plugins may import.
 */
import { createServiceRef } from '../../core/index.ts';
import type { RolesService, AssignmentsService, PermissionsService } from './service-interfaces.ts';

export type { RolesService, AssignmentsService, PermissionsService, ScopeCatalogView } from './service-interfaces.ts';

export type { RoleDto, PermissionDto } from './roles.service.ts';
export type { AssignmentDto, MemberAccessDto } from './assignments.service.ts';
export type { MembershipType } from './membership-type.ts';
export { SodConflictError, memberErrors } from './errors.ts';
export { DIRECTOR_ORG_TYPES, DIRECTOR_ROLE_KEYS, isDirectorRoleId, isDirectorRoleKey, presetRoleId } from './presets.ts';

export const rbacRefs = {
  /** Roles, permission templates, presets. */
  roles: createServiceRef<RolesService>('rbac.roles'),
  /** Assigning roles (snapshots), separation of duties, members' access. */
  assignments: createServiceRef<AssignmentsService>('rbac.assignments'),
  /** "Does this principal hold scope X here?" — fresh grants per call. */
  permissions: createServiceRef<PermissionsService>('rbac.permissions'),
};

/** Shared response schemas other plugins reference (`schemaRef`): a role assignment, membership types. */
export { assignment as assignmentSchema, membershipTypeSchema } from './schemas/responses.ts';
