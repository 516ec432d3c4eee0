import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Database, isUuid } from '../../core/index.ts';
import { compileFilter } from './filter/compile-filter.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { LIST_RESPONSE_URN, USER_ATTRIBUTES_JOIN, USER_FROM, USER_SCHEMA_URN, userFilterSchema } from './user-schema.ts';

/** A SCIM User resource (RFC 7643 §4.1) as Aerie answers it. @see docs/api/scim.md "Users" */
export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name?: { givenName?: string; familyName?: string };
  displayName?: string;
  active: boolean;
  emails: Array<{ value: string; type: 'work'; primary: true }>;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

interface DirectoryRow {
  membershipId: string;
  email: string;
  displayName: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  attributesUpdatedAt: Date | null;
}

/** Most resources one page answers (`count` above it is lowered, RFC 7644 §3.4.2.4). */
export const MAX_PAGE = 200;
const COLUMNS = ['d.membership_id', 'd.email', 'd.status', 'd.created_at', 'd.updated_at', 's.external_id', 's.given_name', 's.family_name',
  's.updated_at as attributes_updated_at'];

/**
 * The organization's members as SCIM Users, read through `orgs.member_directory` (and what the
 * identity provider set) with filters compiled to parameterised SQL (Aerie's own compiler).
 * Revoked memberships are not Users.
 * @see docs/api/scim.md
 */
@injectable()
export class ScimUsersService {
  constructor(@inject(coreRefs.db.id) private readonly db: Database, @inject(coreRefs.config.id) private readonly config: { baseUrl: string }) {}

  /**
   * A page of Users: `startIndex` 1-based, `count` 0–{@link MAX_PAGE}, ordered by creation.
   * @throws ScimFilterError for a filter the grammar or the schema refuses.
   */
  async list(orgId: string, slug: string, page: { filter?: string; startIndex: number; count: number }) {
    let q = this.users(this.db.knex, orgId);
    if (page.filter !== undefined) {
      const { sql, bindings } = compileFilter(parseFilter(page.filter), userFilterSchema);
      q = q.whereRaw(sql, bindings as never[]);
    }
    const [{ total }] = await q.clone().clearSelect().count({ total: '*' });
    const rows: DirectoryRow[] = page.count === 0 ? [] : await q.orderBy('d.created_at').orderBy('d.membership_id').offset(page.startIndex - 1).limit(page.count);
    return {
      schemas: [LIST_RESPONSE_URN], totalResults: Number(total), startIndex: page.startIndex, itemsPerPage: rows.length,
      Resources: rows.map((r) => this.toUser(r, slug)),
    };
  }

  /** One User, or undefined (also for a revoked membership or another organization's id). */
  async get(orgId: string, slug: string, id: string, trx: Knex | Knex.Transaction = this.db.knex): Promise<ScimUser | undefined> {
    if (!isUuid(id)) return undefined;
    const row: DirectoryRow | undefined = await this.users(trx, orgId).where('d.membership_id', id).first();
    return row && this.toUser(row, slug);
  }

  private users(db: Knex | Knex.Transaction, orgId: string) {
    return db(USER_FROM).leftJoin(USER_ATTRIBUTES_JOIN[0], USER_ATTRIBUTES_JOIN[1], USER_ATTRIBUTES_JOIN[2]).where('d.org_id', orgId).whereNot('d.status', 'revoked')
      .select([...COLUMNS, db.raw('COALESCE(s.display_name, d.display_name) as display_name')]);
  }

  private toUser(r: DirectoryRow, slug: string): ScimUser {
    const modified = Math.max(new Date(r.updatedAt).getTime(), r.attributesUpdatedAt ? new Date(r.attributesUpdatedAt).getTime() : 0);
    const name = { ...(r.givenName ? { givenName: r.givenName } : {}), ...(r.familyName ? { familyName: r.familyName } : {}) };
    return {
      schemas: [USER_SCHEMA_URN], id: r.membershipId, ...(r.externalId ? { externalId: r.externalId } : {}), userName: r.email,
      ...(Object.keys(name).length ? { name } : {}), ...(r.displayName ? { displayName: r.displayName } : {}),
      active: r.status === 'active', emails: [{ value: r.email, type: 'work', primary: true }],
      meta: {
        resourceType: 'User', created: new Date(r.createdAt).toISOString(), lastModified: new Date(modified).toISOString(),
        location: `${this.config.baseUrl}/scim/v2/${slug}/Users/${r.membershipId}`, version: `W/"${modified.toString(36)}"`,
      },
    };
  }
}
