/**
 * The rbac plugin's service interfaces: what other plugins may call through its refs (`api.ts`).
 * The classes that implement them stay inside the plugin.
 */
import type { OrgContext, PermissionSet, Principal, ScopeContext, SodConflict } from '../../core/index.ts';
import type { MembershipDto } from '../orgs/api.ts';
import type { Assigner, AssignmentDto, MemberAccessDto } from './assignments.service.ts';
import type { MembershipType } from './membership-type.ts';
import type { PermissionDto, RoleDto, RoleRow } from './roles.service.ts';
import type { CatalogEntry } from './scope-catalog.ts';
import type { Knex } from 'knex';

/** The scope catalog as `RolesService.scopeCatalog()` shows it: the entries, and the scopes left out. */
export interface ScopeCatalogView {
  list(): CatalogEntry[];
  readonly skipped: readonly string[];
}

/**
 * `rbac.roles`: an organization's roles and their permission templates, with the preset roles
 * created at organization creation (hook on `orgs.onCreate`) or, for organizations that existed
 * before rbac was enabled, on first use. Every method takes the organization id and filters by it.
 * @see docs/api/roles.md
 */
export interface RolesService {
  /** The scope catalog roles draw from. */
  scopeCatalog(): ScopeCatalogView;
  /**
   * Creates organization `orgId`'s preset roles and their templates if missing. Idempotent and safe
   * under concurrency (fixed ids, `on conflict do nothing`); templates are only added together with
   * their role, so a later edit is never undone.
   */
  ensurePresets(orgId: string, trx?: Knex | Knex.Transaction): Promise<void>;
  /** Roles of `orgId`, presets first then by name; inactive ones only with `includeInactive`. */
  list(orgId: string, includeInactive: boolean): Promise<RoleDto[]>;
  /** The role `roleId` of `orgId` (any state), or `undefined`. */
  find(orgId: string, roleId: string, trx?: Knex | Knex.Transaction): Promise<RoleRow | undefined>;
  /** The role with its permissions. @throws 404 `ROLE_NOT_FOUND` */
  get(orgId: string, roleId: string, trx?: Knex | Knex.Transaction): Promise<RoleDto>;
  /** The role's templates (canonical texts), oldest first. */
  templateScopes(orgId: string, roleId: string, trx?: Knex | Knex.Transaction): Promise<string[]>;
  /**
   * Creates a custom role (in `trx` when given, else in a transaction of its own). @throws 400 `ROLE_KEY_RESERVED` (a preset key or `AGENT_…`), 409 `ROLE_KEY_TAKEN`
   */
  create(orgId: string, input: { Name: string; RoleKey: string; Description?: string | null; RequiresApproval?: boolean }, trx?: Knex.Transaction): Promise<RoleDto>;
  /**
   * Updates a role's fields (in `trx` when given). Presets keep their `RoleKey`.
   * @throws 404 `ROLE_NOT_FOUND`, 409 `PRESET_ROLE`, 400 `ROLE_KEY_RESERVED`, 409 `ROLE_KEY_TAKEN`
   */
  update(orgId: string, roleId: string, patch: { Name?: string; RoleKey?: string; Description?: string | null; RequiresApproval?: boolean; IsActive?: boolean }, trx?: Knex.Transaction): Promise<RoleDto>;
  /**
   * Deletes a custom role nobody holds (its templates go with it; in `trx` when given).
   * @throws 404 `ROLE_NOT_FOUND`, 409 `PRESET_ROLE`, 409 `ROLE_IN_USE` (with `assignments`)
   */
  remove(orgId: string, roleId: string, trx?: Knex.Transaction): Promise<void>;
  /**
   * Adds a scope expression to a custom role, its base resolved from the catalog. Existing
   * assignments keep their snapshots (see docs/api/roles.md "Snapshots").
   * @param callerHolds - the caller's grants when they are a plain member (they may only add what they hold)
   * @param trx - the caller's transaction (a role created together with its permission), else one of its own
   * @throws 400 `INVALID_SCOPE` / `SCOPE_NOT_ALLOWED` / `UNKNOWN_SCOPE`, 404 `ROLE_NOT_FOUND`,
   *   409 `PRESET_ROLE`, 403 `PERMISSION_DENIED`, 409 `PERMISSION_EXISTS`
   */
  addPermission(orgId: string, roleId: string, scopeText: string, callerHolds?: PermissionSet, trx?: Knex.Transaction): Promise<PermissionDto>;
  /** Removes a template from a custom role. @throws 404 `ROLE_NOT_FOUND` / `PERMISSION_NOT_FOUND`, 409 `PRESET_ROLE` */
  removePermission(orgId: string, roleId: string, templateId: string): Promise<void>;
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
export interface AssignmentsService {
  /**
   * Runs `fn` in a transaction; when it throws {@link SodConflictError}, the refusal is sealed as
   * `auth.sod.assignment_blocked` in a transaction of its own (the assignment's rolled back), then
   * the error is rethrown.
   */
  withSodAudit<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /**
   * Assigns `roleId` to membership `membershipId` with `variables`, inside `trx`.
   * @returns the assignment, whether it was created (false: re-snapshotted), and the new membership type
   * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND`, 409 `ROLE_INACTIVE` / `MEMBER_NOT_ACTIVE`,
   *   400 `VALIDATION_FAILED` (unknown variable), 403 `PERMISSION_DENIED` (a plain member passing on
   *   a scope they do not hold), 403 `SOD_CONFLICT`
   */
  assign(trx: Knex.Transaction, input: { orgId: string; membershipId: string; roleId: string; variables?: Record<string, string>; assigner?: Assigner; member?: MembershipDto }): Promise<{ assignment: AssignmentDto; created: boolean; membershipType: MembershipType }>;
  /**
   * Gives role `roleId` (without variables) to every member of `membershipIds` not holding it yet,
   * inside `trx` (SCIM group membership): every rule of {@link assign} is checked for all members
   * before anything is written; members already holding the role are left as they are.
   * @returns the membership ids newly assigned
   * @throws 404 `ROLE_NOT_FOUND` / `MEMBER_NOT_FOUND`, 409 `ROLE_INACTIVE` / `MEMBER_NOT_ACTIVE`,
   *   403 `SOD_CONFLICT` (one audit per blocked member, sealed by {@link withSodAudit})
   */
  assignMany(trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds: readonly string[] }): Promise<{ added: string[] }>;
  /**
   * Takes every assignment of `roleId` away from `membershipIds` (all holders when omitted), inside
   * `trx`; members not holding it are skipped. @returns the membership ids that lost the role
   * @throws 404 `ROLE_NOT_FOUND`
   */
  unassignMany(trx: Knex.Transaction, input: { orgId: string; roleId: string; membershipIds?: readonly string[] }): Promise<{ removed: string[] }>;
  /**
   * Checks, before an invitation is sent, that `roleId` could be assigned to a new plain member by
   * `assigner`: the role exists and is active, the assigner holds what it grants, and it does not
   * hold a forbidden pair by itself (compiled without variables).
   * @throws 404 `ROLE_NOT_FOUND`, 409 `ROLE_INACTIVE`, 403 `PERMISSION_DENIED`, 403 `SOD_CONFLICT`
   */
  preflight(orgId: string, roleId: string, assigner?: Assigner, trx?: Knex | Knex.Transaction): Promise<{ roleId: string; roleKey: string; name: string }>;
  /**
   * Checks that `assigner` could grant role `roleId` (a plain member only what they hold): what
   * cancelling or re-sending an invitation for that role requires, as inviting does. A role that no
   * longer exists grants nothing, so anyone who may invite passes.
   * @throws 403 `PERMISSION_DENIED` with `required` (the first permission the assigner lacks)
   */
  assertMayGrant(orgId: string, roleId: string, assigner: Assigner, trx?: Knex | Knex.Transaction): Promise<void>;
  /**
   * Takes assignment `connectedIdRoleId` (of role `roleId`) away. @throws 404 `ROLE_NOT_FOUND` / `ASSIGNMENT_NOT_FOUND`
   * @returns the member's new membership type
   */
  unassign(orgId: string, roleId: string, connectedIdRoleId: string): Promise<{ membershipType: MembershipType }>;
  /**
   * Drops every assignment of a member, inside the caller's transaction: on revoke (the access row
   * stays, emptied, its version bumped, since a revoked membership can be re-activated with the same
   * id) or on delete (`forget`: the row goes too; membership ids are never reused).
   */
  clear(trx: Knex.Transaction, orgId: string, membershipId: string, options?: { forget?: boolean }): Promise<void>;
  /** What each of `membershipIds` (of `orgId`) holds; members without assignments get `Member` and the default grant. */
  accessOf(orgId: string, membershipIds: readonly string[], trx?: Knex | Knex.Transaction): Promise<Map<string, MemberAccessDto>>;
  /**
   * Members holding both halves of a forbidden pair now (Owner and Admin are exempt and left out).
   * @returns one finding per member and pair
   */
  sodFindings(orgId: string): Promise<Array<{ connectedIdId: string; accountId: string; conflict: SodConflict }>>;
  /** Seals one `auth.sod.conflict_detected` per finding (a scan). */
  recordFindings(orgId: string, findings: ReadonlyArray<{ connectedIdId: string; accountId: string; conflict: SodConflict }>): Promise<void>;
}

/**
 * `rbac.permissions`: "does this principal hold scope X in this organization?".
 *
 * - Owner and Admin hold everything (`'all'`).
 * - Another active member holds the default grant (`org.audit_event_log.list:actor=self`) and the
 *   union of their assignment snapshots, read fresh on every call with one primary-key look-up
 *   (`rbac.member_access`), so a revocation applies on the next request. Membership status was read
 *   fresh by the organization resolver in the same request: suspended and revoked members never
 *   get here (404).
 * - Credentials that carry their own scopes (API keys, machine tokens) are judged by those.
 *
 * The built {@link PermissionSet} of a member (and the frozen grants array handed to the kernel's
 * route check, which keeps the set it built per array) is cached against the access row's
 * `version`, so a repeated check costs the look-up plus a few map probes; any change of the
 * member's grants bumps the version (it never goes back, see `AssignmentsService.clear`) and the
 * next call rebuilds.
 * @see docs/api/roles.md, docs/api/accounts.md (fresh permissions), "Errors" (`PERMISSION_DENIED`)
 */
export interface PermissionsService {
  /**
   * The grants provider registered on `coreExtensions.grants` (route `scope` checks).
   * @returns `'all'` for Owner and Admin, otherwise the member's scope texts
   */
  grantsOf(principal: Principal, org: OrgContext): Promise<'all' | string[]>;
  /**
   * The cached set for a member at `version`, rebuilt when the version moved. The default grant is
   * included. Exposed for the benchmark and for callers that already read the access row.
   */
  setFor(membershipId: string, version: number, grants: readonly string[]): PermissionSet;
}
