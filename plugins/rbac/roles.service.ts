import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type Database } from '../../core/index.ts';
import type { PermissionSet } from '../../core/index.ts';
import type { ScopeCatalog } from './scope-catalog.ts';
import { rbacInternalRefs } from './internal-refs.ts';
import { isPresetKey, PRESET_ROLES, presetRoleId, presetTemplateId } from './presets.ts';
import { parseTemplate, templateCeiling, variablesOf } from './role-compile.ts';
import { rbacErrors } from './errors.ts';
import type { RolesService as RolesServiceApi } from './service-interfaces.ts';

type Db = Knex | Knex.Transaction;

/** Role keys starting with this are kept for agent badges (`AGENT_{KIND}`, docs/api/roles.md). */
const RESERVED_PREFIX = 'AGENT_';

/** A permission template as clients see it. */
export interface PermissionDto {
  TemplateId: string;
  /** The scope expression as stored (canonical; may hold `{variable}` placeholders). */
  Scope: string;
  /** The catalog base it resolved to. */
  BaseScope: string;
  CreatedAt: string;
}

/** A role as clients see it. @see docs/api/roles.md "The role object" */
export interface RoleDto {
  RoleId: string;
  Name: string;
  RoleKey: string;
  Description: string | null;
  RequiresApproval: boolean;
  IsPreset: boolean;
  IsActive: boolean;
  /** Variables its templates use (`project` for `PROJECT_GUEST`). */
  Variables: string[];
  Permissions: PermissionDto[];
  CreatedAt: string;
  UpdatedAt: string;
}

/** A row of `rbac.roles`. */
export interface RoleRow {
  id: string;
  orgId: string;
  roleKey: string;
  name: string;
  description: string | null;
  requiresApproval: boolean;
  isPreset: boolean;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface TemplateRow {
  id: string;
  orgId: string;
  roleId: string;
  scope: string;
  baseScope: string;
  createdAt: Date;
}

/**
 * `rbac.roles`: an organization's roles and their permission templates, with the preset roles
 * created at organization creation (hook on `orgs.onCreate`) or, for organizations that existed
 * before rbac was enabled, on first use. Every method takes the organization id and filters by it.
 * @see docs/api/roles.md
 */
@injectable()
export class RolesService implements RolesServiceApi {
  /** Organizations known to have their presets (process-local; creation is idempotent anyway). */
  private readonly presetsReady = new Set<string>();

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(rbacInternalRefs.scopeCatalog.id) private readonly catalog: ScopeCatalog,
  ) {}

  /** The scope catalog roles draw from. */
  scopeCatalog(): ScopeCatalog {
    return this.catalog;
  }

  /**
   * Creates organization `orgId`'s preset roles and their templates if missing. Idempotent and safe
   * under concurrency (fixed ids, `on conflict do nothing`); templates are only added together with
   * their role, so a later edit is never undone.
   */
  async ensurePresets(orgId: string, trx?: Db): Promise<void> {
    if (this.presetsReady.has(orgId)) return;
    const db = trx ?? this.db.knex;
    const now = this.clock.now();
    const inserted = await db('rbac.roles')
      .insert(PRESET_ROLES.map((p) => ({
        id: presetRoleId(orgId, p.roleKey), orgId, roleKey: p.roleKey, name: p.name, description: p.description,
        requiresApproval: false, isPreset: true, isActive: true, createdAt: now, updatedAt: now,
      })))
      .onConflict(['org_id', 'role_key']).ignore()
      .returning('roleKey') as Array<{ roleKey: string }>;
    const fresh = new Set(inserted.map((r) => r.roleKey));
    const templates = PRESET_ROLES.filter((p) => fresh.has(p.roleKey)).flatMap((p) =>
      p.templates.map((scope, i) => ({
        id: presetTemplateId(orgId, p.roleKey, i), orgId, roleId: presetRoleId(orgId, p.roleKey),
        scope: parseTemplate(scope).scope, baseScope: parseTemplate(scope).expr.base, createdAt: now,
      })),
    );
    if (templates.length > 0) await db('rbac.permission_templates').insert(templates).onConflict('id').ignore();
    // Inside a caller's transaction the rows are not committed yet: remember them only outside one.
    if (!trx) this.presetsReady.add(orgId);
  }

  /** Roles of `orgId`, presets first then by name; inactive ones only with `includeInactive`. */
  async list(orgId: string, includeInactive: boolean): Promise<RoleDto[]> {
    await this.ensurePresets(orgId);
    const q = this.db.knex<RoleRow>('rbac.roles').where({ orgId }).orderBy([{ column: 'isPreset', order: 'desc' }, { column: 'name' }, { column: 'id' }]);
    if (!includeInactive) q.where({ isActive: true });
    const roles = (await q) as RoleRow[];
    const templates = (await this.db.knex('rbac.permission_templates').where({ orgId }).orderBy([{ column: 'createdAt' }, { column: 'scope' }])) as TemplateRow[];
    return roles.map((r) => toDto(r, templates.filter((t) => t.roleId === r.id)));
  }

  /** The role `roleId` of `orgId` (any state), or `undefined`. */
  async find(orgId: string, roleId: string, trx?: Db): Promise<RoleRow | undefined> {
    await this.ensurePresets(orgId, trx);
    return (await (trx ?? this.db.knex)<RoleRow>('rbac.roles').where({ orgId, id: roleId }).first()) as RoleRow | undefined;
  }

  /** The role with its permissions. @throws 404 `ROLE_NOT_FOUND` */
  async get(orgId: string, roleId: string, trx?: Db): Promise<RoleDto> {
    const role = await this.find(orgId, roleId, trx);
    if (!role) throw rbacErrors.roleNotFound();
    return toDto(role, await this.templatesOf(orgId, roleId, trx));
  }

  /** The role's templates (canonical texts), oldest first. */
  async templateScopes(orgId: string, roleId: string, trx?: Db): Promise<string[]> {
    return (await this.templatesOf(orgId, roleId, trx)).map((t) => t.scope);
  }

  /**
   * Creates a custom role (in `outer` when given, else in a transaction of its own).
   * @throws 400 `ROLE_KEY_RESERVED` (a preset key or `AGENT_…`), 409 `ROLE_KEY_TAKEN`
   */
  async create(orgId: string, input: { Name: string; RoleKey: string; Description?: string | null; RequiresApproval?: boolean }, outer?: Knex.Transaction): Promise<RoleDto> {
    if (isPresetKey(input.RoleKey) || input.RoleKey.startsWith(RESERVED_PREFIX)) throw rbacErrors.roleKeyReserved(input.RoleKey);
    await this.ensurePresets(orgId, outer);
    const now = this.clock.now();
    const row = await this.inTransaction(outer, async (trx) => {
      const taken = await trx('rbac.roles').where({ orgId, roleKey: input.RoleKey }).first();
      if (taken) throw rbacErrors.roleKeyTaken(input.RoleKey);
      const [created] = (await trx('rbac.roles').insert({
        id: randomUUID(), orgId, roleKey: input.RoleKey, name: input.Name.trim(), description: input.Description ?? null,
        requiresApproval: input.RequiresApproval ?? false, isPreset: false, isActive: true, createdAt: now, updatedAt: now,
      }).returning('*')) as RoleRow[];
      await this.audit.append(trx, { orgId, eventType: 'org.role.created', businessData: { roleId: created.id, roleKey: created.roleKey, name: created.name } });
      return created;
    }).catch(uniqueViolation(() => rbacErrors.roleKeyTaken(input.RoleKey)));
    return toDto(row, []);
  }

  /**
   * Updates a role's fields (in `outer` when given). Presets keep their `RoleKey`.
   * @throws 404 `ROLE_NOT_FOUND`, 409 `PRESET_ROLE`, 400 `ROLE_KEY_RESERVED`, 409 `ROLE_KEY_TAKEN`
   */
  async update(orgId: string, roleId: string, patch: { Name?: string; RoleKey?: string; Description?: string | null; RequiresApproval?: boolean; IsActive?: boolean }, outer?: Knex.Transaction): Promise<RoleDto> {
    await this.ensurePresets(orgId, outer);
    const row = await this.inTransaction(outer, async (trx) => {
      const role = (await trx('rbac.roles').where({ orgId, id: roleId }).forUpdate().first()) as RoleRow | undefined;
      if (!role) throw rbacErrors.roleNotFound();
      const changes: Partial<RoleRow> = {};
      if (patch.RoleKey !== undefined && patch.RoleKey !== role.roleKey) {
        if (role.isPreset) throw rbacErrors.presetRole(role.roleKey, 'RoleKey');
        if (isPresetKey(patch.RoleKey) || patch.RoleKey.startsWith(RESERVED_PREFIX)) throw rbacErrors.roleKeyReserved(patch.RoleKey);
        if (await trx('rbac.roles').where({ orgId, roleKey: patch.RoleKey }).first()) throw rbacErrors.roleKeyTaken(patch.RoleKey);
        changes.roleKey = patch.RoleKey;
      }
      if (patch.Name !== undefined) changes.name = patch.Name.trim();
      if (patch.Description !== undefined) changes.description = patch.Description;
      if (patch.RequiresApproval !== undefined) changes.requiresApproval = patch.RequiresApproval;
      if (patch.IsActive !== undefined) changes.isActive = patch.IsActive;
      const [updated] = (await trx('rbac.roles').where({ orgId, id: roleId }).update({ ...changes, updatedAt: this.clock.now() }).returning('*')) as RoleRow[];
      await this.audit.append(trx, { orgId, eventType: 'org.role.updated', businessData: { roleId, roleKey: updated.roleKey, changes: Object.keys(changes) } });
      return updated;
    }).catch(uniqueViolation(() => rbacErrors.roleKeyTaken(patch.RoleKey ?? '')));
    return toDto(row, await this.templatesOf(orgId, roleId, outer));
  }

  /**
   * Deletes a custom role nobody holds (its templates go with it; in `outer` when given).
   * @throws 404 `ROLE_NOT_FOUND`, 409 `PRESET_ROLE`, 409 `ROLE_IN_USE` (with `assignments`)
   */
  async remove(orgId: string, roleId: string, outer?: Knex.Transaction): Promise<void> {
    await this.ensurePresets(orgId, outer);
    await this.inTransaction(outer, async (trx) => {
      const role = (await trx('rbac.roles').where({ orgId, id: roleId }).forUpdate().first()) as RoleRow | undefined;
      if (!role) throw rbacErrors.roleNotFound();
      if (role.isPreset) throw rbacErrors.presetRole(role.roleKey, 'existence');
      const [{ n }] = (await trx('rbac.role_assignments').where({ orgId, roleId }).count({ n: '*' })) as Array<{ n: number | string }>;
      if (Number(n) > 0) throw rbacErrors.roleInUse(Number(n));
      await trx('rbac.roles').where({ orgId, id: roleId }).delete();
      await this.audit.append(trx, { orgId, eventType: 'org.role.deleted', businessData: { roleId, roleKey: role.roleKey } });
    });
  }

  /**
   * Adds a scope expression to a custom role, its base resolved from the catalog. Existing
   * assignments keep their snapshots (see docs/api/roles.md "Snapshots").
   * @param callerHolds - the caller's grants when they are a plain member (they may only add what they hold)
   * @param outer - the caller's transaction, when the role is created in it
   * @throws 400 `INVALID_SCOPE` / `SCOPE_NOT_ALLOWED` / `UNKNOWN_SCOPE`, 404 `ROLE_NOT_FOUND`,
   *   409 `PRESET_ROLE`, 403 `PERMISSION_DENIED`, 409 `PERMISSION_EXISTS`
   */
  async addPermission(orgId: string, roleId: string, scopeText: string, callerHolds?: PermissionSet, outer?: Knex.Transaction): Promise<PermissionDto> {
    const template = parseTemplate(scopeText);
    const baseScope = this.catalog.resolveBase(template.expr, scopeText);
    await this.ensurePresets(orgId, outer);
    const row = await this.inTransaction(outer, async (trx) => {
      const role = (await trx('rbac.roles').where({ orgId, id: roleId }).forUpdate().first()) as RoleRow | undefined;
      if (!role) throw rbacErrors.roleNotFound();
      if (role.isPreset) throw rbacErrors.presetRole(role.roleKey, 'permissions');
      const ceiling = templateCeiling(scopeText);
      if (callerHolds && !callerHolds.has(ceiling)) throw rbacErrors.grantNotHeld(ceiling, 'add permissions');
      if (await trx('rbac.permission_templates').where({ roleId, scope: template.scope }).first()) throw rbacErrors.permissionExists(template.scope);
      const [created] = (await trx('rbac.permission_templates').insert({
        id: randomUUID(), orgId, roleId, scope: template.scope, baseScope, createdAt: this.clock.now(),
      }).returning('*')) as TemplateRow[];
      await trx('rbac.roles').where({ id: roleId }).update({ updatedAt: this.clock.now() });
      await this.audit.append(trx, { orgId, eventType: 'org.permission.created', businessData: { roleId, roleKey: role.roleKey, templateId: created.id, scope: created.scope } });
      return created;
    }).catch(uniqueViolation(() => rbacErrors.permissionExists(template.scope)));
    return templateDto(row);
  }

  /** Removes a template from a custom role. @throws 404 `ROLE_NOT_FOUND` / `PERMISSION_NOT_FOUND`, 409 `PRESET_ROLE` */
  async removePermission(orgId: string, roleId: string, templateId: string): Promise<void> {
    await this.ensurePresets(orgId);
    await this.db.transaction(async (trx) => {
      const role = (await trx('rbac.roles').where({ orgId, id: roleId }).forUpdate().first()) as RoleRow | undefined;
      if (!role) throw rbacErrors.roleNotFound();
      const template = (await trx('rbac.permission_templates').where({ orgId, roleId, id: templateId }).first()) as TemplateRow | undefined;
      if (!template) throw rbacErrors.templateNotFound();
      if (role.isPreset) throw rbacErrors.presetRole(role.roleKey, 'permissions');
      await trx('rbac.permission_templates').where({ id: templateId }).delete();
      await trx('rbac.roles').where({ id: roleId }).update({ updatedAt: this.clock.now() });
      await this.audit.append(trx, { orgId, eventType: 'org.permission.deleted', businessData: { roleId, roleKey: role.roleKey, templateId, scope: template.scope } });
    });
  }

  /** Runs `fn` in the caller's transaction, or in one of its own. */
  private inTransaction<T>(outer: Knex.Transaction | undefined, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return outer ? fn(outer) : this.db.transaction(fn);
  }

  private async templatesOf(orgId: string, roleId: string, trx?: Db): Promise<TemplateRow[]> {
    return (await (trx ?? this.db.knex)('rbac.permission_templates').where({ orgId, roleId }).orderBy([{ column: 'createdAt' }, { column: 'scope' }])) as TemplateRow[];
  }
}

function templateDto(t: TemplateRow): PermissionDto {
  return { TemplateId: t.id, Scope: t.scope, BaseScope: t.baseScope, CreatedAt: new Date(t.createdAt).toISOString() };
}

function toDto(r: RoleRow, templates: TemplateRow[]): RoleDto {
  const permissions = templates.map(templateDto);
  return {
    RoleId: r.id, Name: r.name, RoleKey: r.roleKey, Description: r.description, RequiresApproval: r.requiresApproval,
    IsPreset: r.isPreset, IsActive: r.isActive, Variables: variablesOf(permissions.map((p) => p.Scope)), Permissions: permissions,
    CreatedAt: new Date(r.createdAt).toISOString(), UpdatedAt: new Date(r.updatedAt).toISOString(),
  };
}

/** Maps a unique-index violation (two requests racing) to the given error. */
function uniqueViolation(make: () => Error) {
  return (err: { code?: string; nativeError?: { code?: string } }): never => {
    if ((err.nativeError?.code ?? err.code) === '23505') throw make();
    throw err;
  };
}
