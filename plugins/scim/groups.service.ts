import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Database, isUuid } from '../../core/index.ts';
import { compileFilter } from './filter/compile-filter.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { AGENT_ROLE_KEYS, GROUP_ATTRIBUTES_JOIN, GROUP_FROM, GROUP_SCHEMA_URN, groupFilterSchema } from './group-schema.ts';
import { project, wants, type Projection } from './projection.ts';
import { LIST_RESPONSE_URN } from './user-schema.ts';
import { MAX_PAGE } from './users.service.ts';

/** A member of a Group: a User. */
export interface ScimGroupMember {
  value: string;
  display: string;
  type: 'User';
  $ref: string;
}

/** A SCIM Group resource (RFC 7643 §4.2) as Aerie answers it. @see docs/api/scim.md "Groups" */
export interface ScimGroup {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  members?: ScimGroupMember[];
  meta: { resourceType: 'Group'; created: string; lastModified: string; location: string; version: string };
}

interface GroupRow {
  roleId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  externalId: string | null;
  attributesUpdatedAt: Date | null;
  lastAssignedAt: Date | null;
  memberCount: string | number;
}

type Db = Knex | Knex.Transaction;
const ALL: Projection = { exclude: new Set() };

/**
 * The organization's roles as SCIM Groups, read through rbac's published views
 * (`rbac.role_directory`, `rbac.role_holders`) and `orgs.member_directory`, with filters compiled to
 * parameterised SQL. Roles kept for agents (`AGENT_…`) are not Groups; members are Users (never
 * revoked memberships). Members are loaded only when the answer carries them
 * (`excludedAttributes=members` skips them).
 * @see docs/api/scim.md "Groups"
 */
@injectable()
export class ScimGroupsService {
  constructor(@inject(coreRefs.db.id) private readonly db: Database, @inject(coreRefs.config.id) private readonly config: { baseUrl: string }) {}

  /**
   * A page of Groups: `startIndex` 1-based, `count` 0–{@link MAX_PAGE}, ordered by creation.
   * @throws ScimFilterError for a filter the grammar or the schema refuses.
   */
  async list(orgId: string, slug: string, page: { filter?: string; startIndex: number; count: number }, projection: Projection = ALL) {
    let q = this.groups(this.db.knex, orgId);
    if (page.filter !== undefined) {
      const { sql, bindings } = compileFilter(parseFilter(page.filter), groupFilterSchema);
      q = q.whereRaw(sql, bindings as never[]);
    }
    const [{ total }] = await q.clone().clearSelect().count({ total: '*' });
    const rows: GroupRow[] = page.count === 0 ? [] : await q.orderBy('g.created_at').orderBy('g.role_id').offset(page.startIndex - 1).limit(page.count);
    const members = wants(projection, 'members') ? await this.membersOf(this.db.knex, orgId, slug, rows.map((r) => r.roleId)) : undefined;
    return {
      schemas: [LIST_RESPONSE_URN], totalResults: Number(total), startIndex: page.startIndex, itemsPerPage: rows.length,
      Resources: rows.map((r) => project(this.toGroup(r, slug, members?.get(r.roleId)), projection)),
    };
  }

  /** One Group, or undefined (also for another organization's or an agent role's id). */
  async get(orgId: string, slug: string, id: string, projection: Projection = ALL, trx: Db = this.db.knex): Promise<Partial<ScimGroup> | undefined> {
    if (!isUuid(id)) return undefined;
    const row: GroupRow | undefined = await this.groups(trx, orgId).where('g.role_id', id).first();
    if (!row) return undefined;
    const members = wants(projection, 'members') ? (await this.membersOf(trx, orgId, slug, [id])).get(id) : undefined;
    return project(this.toGroup(row, slug, members), projection);
  }

  /** The membership ids of Group `id`'s members, inside `trx` (the writer's view of the current state). */
  async memberIds(trx: Db, orgId: string, id: string): Promise<string[]> {
    const rows = (await this.holders(trx, orgId, [id]).select('h.membership_id')) as Array<{ membershipId: string }>;
    return [...new Set(rows.map((r) => r.membershipId))];
  }

  private groups(db: Db, orgId: string) {
    return db(GROUP_FROM).leftJoin(...GROUP_ATTRIBUTES_JOIN).where('g.org_id', orgId).whereNot('g.role_key', 'like', AGENT_ROLE_KEYS)
      .select(['g.role_id', 'g.name', 'g.created_at', 'g.updated_at', 'ga.external_id', 'ga.updated_at as attributes_updated_at',
        db.raw('(SELECT max(h.assigned_at) FROM rbac.role_holders h WHERE h.role_id = g.role_id AND h.org_id = g.org_id) AS last_assigned_at'),
        db.raw('(SELECT count(*) FROM rbac.role_holders h WHERE h.role_id = g.role_id AND h.org_id = g.org_id) AS member_count')]);
  }

  private holders(db: Db, orgId: string, roleIds: string[]) {
    return db('rbac.role_holders as h').join('orgs.member_directory as d', (j) => j.on('d.membership_id', 'h.membership_id').andOn('d.org_id', 'h.org_id'))
      .where('h.org_id', orgId).whereIn('h.role_id', roleIds).whereNot('d.status', 'revoked');
  }

  private async membersOf(db: Db, orgId: string, slug: string, roleIds: string[]): Promise<Map<string, ScimGroupMember[]>> {
    const out = new Map<string, ScimGroupMember[]>(roleIds.map((id) => [id, []]));
    if (roleIds.length === 0) return out;
    const rows = (await this.holders(db, orgId, roleIds).leftJoin('scim.user_attributes as s', 's.membership_id', 'h.membership_id')
      .select('h.role_id', 'h.membership_id', db.raw('COALESCE(s.display_name, d.display_name, d.email) AS display'))
      .orderBy('h.assigned_at').orderBy('h.membership_id')) as Array<{ roleId: string; membershipId: string; display: string }>;
    const seen = new Set<string>();
    for (const r of rows) {
      if (seen.has(`${r.roleId}/${r.membershipId}`)) continue; // one member holding the role with several variable sets
      seen.add(`${r.roleId}/${r.membershipId}`);
      out.get(r.roleId)!.push({ value: r.membershipId, display: r.display, type: 'User', $ref: `${this.config.baseUrl}/scim/v2/${slug}/Users/${r.membershipId}` });
    }
    return out;
  }

  private toGroup(r: GroupRow, slug: string, members: ScimGroupMember[] | undefined): ScimGroup {
    const time = (d: Date | null) => (d ? new Date(d).getTime() : 0);
    const modified = Math.max(time(r.updatedAt), time(r.attributesUpdatedAt), time(r.lastAssignedAt));
    return {
      schemas: [GROUP_SCHEMA_URN], id: r.roleId, ...(r.externalId ? { externalId: r.externalId } : {}), displayName: r.name,
      ...(members ? { members } : {}),
      meta: {
        resourceType: 'Group', created: new Date(r.createdAt).toISOString(), lastModified: new Date(modified).toISOString(),
        location: `${this.config.baseUrl}/scim/v2/${slug}/Groups/${r.roleId}`, version: `W/"${modified.toString(36)}-${Number(r.memberCount)}"`,
      },
    };
  }
}
