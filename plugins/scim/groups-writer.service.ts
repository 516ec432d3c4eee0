import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AerieError, coreRefs, inject, injectable, type AuditService, type Clock, type Database, isUuid } from '../../core/index.ts';
import { isDirectorRoleId, rbacRefs, SodConflictError, type AssignmentsService, type RolesService } from '../rbac/api.ts';
import { AGENT_ROLE_KEYS } from './group-schema.ts';
import type { GroupState } from './group-input.ts';
import { scimRefs } from './internal-refs.ts';
import type { ScimGroup, ScimGroupsService } from './groups.service.ts';
import { ScimConflict } from './users-writer.service.ts';

/** Membership roles, not Groups: provisioning never names a role after them (nor grants them). */
const RESERVED_NAMES = new Set(['owner', 'admin']);

interface Current {
  name: string;
  roleKey: string;
  isPreset: boolean;
  isActive: boolean;
  externalId: string | null;
}

/**
 * Provisioning writes on Groups: a Group is a role of the organization (rbac) and its members are the
 * Users holding it. Create makes a custom role, rename renames it, membership changes go through
 * rbac's assignment path (`assignMany`/`unassignMany`) inside one transaction per request, so every
 * rule of a role assignment applies — separation of duties above all: a member it refuses fails the
 * whole request (403, each refusal sealed as `auth.sod.assignment_blocked`), nothing is dropped
 * silently and nothing is half-written. Writes on one Group are serialised (concurrent PATCHes from
 * an identity provider each see the other's result). Delete takes the role from everyone and
 * deletes it; preset roles are never deleted.
 * @see docs/api/scim.md "Groups"
 */
@injectable()
export class ScimGroupsWriter {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(rbacRefs.roles.id) private readonly roles: RolesService,
    @inject(rbacRefs.assignments.id) private readonly assignments: AssignmentsService,
    @inject(scimRefs.groups.id) private readonly groups: ScimGroupsService,
  ) {}

  /**
   * POST /Groups: a custom role named `displayName` (its key derived from the name) with `members`.
   * @throws ScimConflict 400 (a reserved name, unknown or deactivated members), 403 (separation of
   *   duties), 409 `uniqueness` (a role of that name, or the externalId, exists)
   */
  async create(orgId: string, slug: string, input: GroupState, tokenId: string): Promise<ScimGroup> {
    const id = await this.transaction(async (trx) => {
      await this.checkName(trx, orgId, input.displayName, null);
      const role = await this.createRole(trx, orgId, input.displayName);
      await this.writeExternalId(trx, orgId, role, input.externalId);
      const added = await this.addMembers(trx, orgId, role, input.members);
      await this.audit.append(trx, {
        orgId, eventType: 'org.scim_group.provisioned',
        businessData: { roleId: role, displayName: input.displayName, externalId: input.externalId, added: added.length, scimTokenId: tokenId },
      });
      return role;
    });
    return (await this.groups.get(orgId, slug, id)) as ScimGroup;
  }

  /**
   * PUT (the whole Group) or PATCH (`next` computes the target from the current state): renames the
   * role and reconciles its members in one transaction.
   * @throws ScimConflict 404, 400, 403, 409 as {@link create}; `next` answers its own refusals as ScimConflict
   */
  async update(orgId: string, id: string, next: (current: GroupState) => GroupState, tokenId: string): Promise<void> {
    await this.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`scim.group:${id}`]);
      const current = await this.current(trx, orgId, id);
      if (!current) throw new ScimConflict(404, `No Group ${id}.`);
      const members = await this.groups.memberIds(trx, orgId, id);
      const target = next({ displayName: current.name, externalId: current.externalId, members });
      const renamed = target.displayName !== current.name;
      if (renamed) {
        await this.checkName(trx, orgId, target.displayName, id);
        await this.roles.update(orgId, id, { Name: target.displayName }, trx);
      }
      if (target.externalId !== current.externalId) await this.writeExternalId(trx, orgId, id, target.externalId);
      const wanted = new Set(target.members);
      const had = new Set(members);
      const removed = members.filter((m) => !wanted.has(m));
      if (removed.length > 0) await this.assignments.unassignMany(trx, { orgId, roleId: id, membershipIds: removed });
      const toAdd = target.members.filter((m) => !had.has(m));
      if (toAdd.length > 0 && !current.isActive) throw new ScimConflict(400, 'The role is inactive: it cannot be given to members.', 'mutability');
      const added = await this.addMembers(trx, orgId, id, toAdd);
      if (!renamed && target.externalId === current.externalId && added.length === 0 && removed.length === 0) return;
      await this.audit.append(trx, {
        orgId, eventType: 'org.scim_group.updated',
        businessData: { roleId: id, displayName: target.displayName, renamed, externalId: target.externalId, added: added.length, removed: removed.length, scimTokenId: tokenId },
      });
    });
  }

  /** DELETE: the role is taken from every member and deleted. @throws ScimConflict 404, 400 `mutability` (a preset role) */
  async delete(orgId: string, id: string, tokenId: string): Promise<void> {
    await this.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`scim.group:${id}`]);
      const current = await this.current(trx, orgId, id);
      if (!current) throw new ScimConflict(404, `No Group ${id}.`);
      if (current.isPreset) throw new ScimConflict(400, `${current.roleKey} is a preset role: it cannot be deleted.`, 'mutability');
      const { removed } = await this.assignments.unassignMany(trx, { orgId, roleId: id });
      await trx('scim.group_attributes').where({ orgId, roleId: id }).delete();
      await this.roles.remove(orgId, id, trx);
      await this.audit.append(trx, { orgId, eventType: 'org.scim_group.deleted', businessData: { roleId: id, displayName: current.name, removed: removed.length, scimTokenId: tokenId } });
    });
  }

  /** Runs `fn` through rbac's separation-of-duties wrapper; rbac refusals become SCIM errors. */
  private async transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.assignments.withSodAudit(fn);
    } catch (err) {
      if (err instanceof SodConflictError) {
        const blocked = [err.audit, ...err.more].map((a) => a.businessData.connectedIdId as string);
        const pair = `${err.conflicts[0]!.a} and ${err.conflicts[0]!.b}`;
        throw new ScimConflict(403, `Separation of duties: ${blocked.length === 1 ? 'User' : 'Users'} ${list(blocked)} would hold both ${pair}`
          + `${blocked.length > 1 ? ' (or another forbidden pair)' : ''}. Nothing was changed; each refusal is recorded as auth.sod.assignment_blocked.`);
      }
      if (err instanceof AerieError && err.code === 'ROLE_NOT_FOUND') throw new ScimConflict(404, 'No such Group.');
      if (err instanceof AerieError && (err.code === 'MEMBER_NOT_FOUND' || err.code === 'MEMBER_NOT_ACTIVE')) throw new ScimConflict(400, err.message, 'invalidValue');
      throw err;
    }
  }

  private async current(trx: Knex.Transaction, orgId: string, id: string): Promise<Current | undefined> {
    if (!isUuid(id)) return undefined;
    return (await trx('rbac.role_directory as g').leftJoin('scim.group_attributes as ga', 'ga.role_id', 'g.role_id')
      .where('g.org_id', orgId).where('g.role_id', id).whereNot('g.role_key', 'like', AGENT_ROLE_KEYS)
      .first('g.name', 'g.role_key', 'g.is_preset', 'g.is_active', 'ga.external_id')) as Current | undefined;
  }

  /** Reserved names (400) and names another role has, in any case (409 `uniqueness`); serialised per name. */
  private async checkName(trx: Knex.Transaction, orgId: string, name: string, self: string | null): Promise<void> {
    if (RESERVED_NAMES.has(name.toLowerCase())) throw new ScimConflict(400, `${name} is a membership role, not a Group: provisioning cannot grant it.`, 'invalidValue');
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`scim.group-name:${orgId}:${name.toLowerCase()}`]);
    const q = trx('rbac.role_directory').where('org_id', orgId).whereRaw('lower(name) = ?', [name.toLowerCase()]);
    if (self) q.whereNot('role_id', self);
    if (await q.first('role_id')) throw new ScimConflict(409, `A Group named ${name} exists.`, 'uniqueness');
  }

  /** A custom role named `name`, its key derived from the name (a random suffix when that key is reserved or taken). */
  private async createRole(trx: Knex.Transaction, orgId: string, name: string): Promise<string> {
    const words = name.normalize('NFKD').toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 48);
    const base = /^[A-Z][A-Z0-9_]{1,47}$/.test(words) ? words : `GROUP_${words}`.replace(/_+$/, '').slice(0, 48);
    try {
      return (await this.roles.create(orgId, { Name: name, RoleKey: base }, trx)).RoleId;
    } catch (err) {
      if (!(err instanceof AerieError) || (err.code !== 'ROLE_KEY_TAKEN' && err.code !== 'ROLE_KEY_RESERVED')) throw err;
      return (await this.roles.create(orgId, { Name: name, RoleKey: `${base}_${randomBytes(4).toString('hex').toUpperCase()}` }, trx)).RoleId;
    }
  }

  private async writeExternalId(trx: Knex.Transaction, orgId: string, roleId: string, externalId: string | null): Promise<void> {
    if (externalId) {
      const taken = await trx('scim.group_attributes').where({ orgId, externalId }).whereNot({ roleId }).first('roleId');
      if (taken) throw new ScimConflict(409, `externalId ${externalId} belongs to another Group.`, 'uniqueness');
    }
    const now = this.clock.now();
    await trx('scim.group_attributes').insert({ roleId, orgId, externalId, updatedAt: now }).onConflict('roleId').merge({ externalId, updatedAt: now });
  }

  /**
   * Gives the role to `ids` through rbac's bulk assignment, after checking that each is a User of this
   * organization (another organization's id is unknown here) and active, and that the role is not a
   * director preset (appointing a director takes a person's passkey seal, which a token cannot give).
   */
  private async addMembers(trx: Knex.Transaction, orgId: string, roleId: string, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    if (isDirectorRoleId(orgId, roleId)) {
      throw new ScimConflict(403, 'Appointing a director needs a passkey seal of a person: use POST /api/org/{slug}/roles/{roleId}/members.');
    }
    const found = new Map<string, string>();
    const uuids = ids.filter(isUuid);
    for (let i = 0; i < uuids.length; i += 5000) {
      const rows = (await trx('orgs.member_directory').where('org_id', orgId).whereIn('membership_id', uuids.slice(i, i + 5000)).select('membership_id', 'status')) as Array<{ membershipId: string; status: string }>;
      for (const r of rows) found.set(r.membershipId, r.status);
    }
    const unknown = ids.filter((m) => !found.has(m) || found.get(m) === 'revoked');
    if (unknown.length > 0) throw new ScimConflict(400, `No User ${list(unknown)} in this organization.`, 'invalidValue');
    const inactive = ids.filter((m) => found.get(m) !== 'active');
    if (inactive.length > 0) throw new ScimConflict(400, `User ${list(inactive)} is deactivated (active: false): a deactivated member cannot be given a role.`, 'invalidValue');
    return (await this.assignments.assignMany(trx, { orgId, roleId, membershipIds: ids })).added;
  }
}

/** `a, b, c` — at most ten ids, then how many more. */
function list(ids: readonly string[]): string {
  return ids.length <= 10 ? ids.join(', ') : `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more`;
}
