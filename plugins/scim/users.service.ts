import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Database, isUuid } from '../../core/index.ts';
import { compileFilter } from './filter/compile-filter.ts';
import { parseFilter } from './filter/parse-filter.ts';
import { NAME_PARTS, type NamePart } from './user-input.ts';
import { LIST_RESPONSE_URN, USER_ATTRIBUTES_JOIN, USER_FROM, USER_NAME_EQ_SQL, USER_SCHEMA_URN, userFilterSchema } from './user-schema.ts';

/** A SCIM User resource (RFC 7643 §4.1) as Aerie answers it. @see docs/api/scim.md "Users" */
export interface ScimUser {
  schemas: string[];
  id: string;
  externalId?: string;
  userName: string;
  name?: Partial<Record<NamePart, string>>;
  displayName?: string;
  active: boolean;
  emails: Array<{ value: string; type: 'work'; primary: true }>;
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string };
}

interface DirectoryRow extends Record<NamePart, string | null> {
  membershipId: string;
  email: string;
  displayName: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set when the identity provider wrote the User (a row in `scim.user_attributes`). */
  attributesId: string | null;
  userName: string | null;
  externalId: string | null;
  attributesUpdatedAt: Date | null;
}

/** Most resources one page answers (`count` above it is lowered, RFC 7644 §3.4.2.4). */
export const MAX_PAGE = 200;
const COLUMNS = ['d.membership_id', 'd.email', 'd.status', 'd.created_at', 'd.updated_at', 's.membership_id as attributes_id', 's.user_name', 's.external_id',
  's.formatted_name as formatted', 's.family_name', 's.given_name', 's.middle_name', 's.honorific_prefix', 's.honorific_suffix', 's.updated_at as attributes_updated_at'];

/**
 * The organization's members as SCIM Users, read through `orgs.member_directory` (and what the
 * identity provider set) with filters compiled to parameterised SQL (Aerie's own compiler).
 * Revoked memberships are not Users. `userName` is the one the identity provider sent, else the
 * account's email; `name` what it set, else (a member it never wrote) {@link derivedName}.
 * @see docs/api/scim.md "Users"
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

  /**
   * The Users of the organization whose `userName` is `userName` in any case (its own stored one,
   * else the account's email), inside `trx`: the writer's uniqueness check.
   */
  async withUserName(trx: Knex.Transaction, orgId: string, userName: string): Promise<string[]> {
    const lower = userName.toLowerCase();
    const rows = (await trx(USER_FROM).where('d.org_id', orgId).whereNot('d.status', 'revoked').whereRaw(USER_NAME_EQ_SQL, [lower, lower])
      .select('d.membership_id')) as Array<{ membershipId: string }>;
    return rows.map((r) => r.membershipId);
  }

  private users(db: Knex | Knex.Transaction, orgId: string) {
    return db(USER_FROM).leftJoin(USER_ATTRIBUTES_JOIN[0], USER_ATTRIBUTES_JOIN[1], USER_ATTRIBUTES_JOIN[2]).where('d.org_id', orgId).whereNot('d.status', 'revoked')
      .select([...COLUMNS, db.raw('COALESCE(s.display_name, d.display_name) as display_name')]);
  }

  private toUser(r: DirectoryRow, slug: string): ScimUser {
    const modified = Math.max(new Date(r.updatedAt).getTime(), r.attributesUpdatedAt ? new Date(r.attributesUpdatedAt).getTime() : 0);
    const name = r.attributesId ? Object.fromEntries(NAME_PARTS.filter((p) => r[p]).map((p) => [p, r[p]!])) : derivedName(r.displayName, r.email);
    return {
      schemas: [USER_SCHEMA_URN], id: r.membershipId, ...(r.externalId ? { externalId: r.externalId } : {}), userName: r.userName ?? r.email,
      ...(Object.keys(name).length ? { name } : {}), ...(r.displayName ? { displayName: r.displayName } : {}),
      active: r.status === 'active', emails: [{ value: r.email, type: 'work', primary: true }],
      meta: {
        resourceType: 'User', created: new Date(r.createdAt).toISOString(), lastModified: new Date(modified).toISOString(),
        location: `${this.config.baseUrl}/scim/v2/${slug}/Users/${r.membershipId}`, version: `W/"${modified.toString(36)}"`,
      },
    };
  }
}

/**
 * The `name` of a member the identity provider never wrote (one not provisioned): from the display
 * name (else the email's local part), `givenName` all words but the last, `familyName` the last (a
 * single word is both), so every User has a given and a family name.
 */
export function derivedName(displayName: string | null, email: string): Partial<Record<NamePart, string>> {
  const at = email.lastIndexOf('@');
  const formatted = displayName?.trim() || (at > 0 ? email.slice(0, at) : email);
  const words = formatted.split(/\s+/);
  const familyName = words.at(-1)!;
  return { formatted, familyName, givenName: words.length > 1 ? words.slice(0, -1).join(' ') : familyName };
}
