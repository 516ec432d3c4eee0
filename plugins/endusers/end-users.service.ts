import type { Knex } from 'knex';
import {
  coreRefs, inject, injectable, type AuditService, type Clock, type Database, type JobsService, type RateLimiter, type RateLimitService,
} from '../../core/index.ts';
import { ACCESS, END_USER_COLUMNS, END_USERS, endUserDto, nextStatus, type EndUserRow } from './end-user-record.ts';
import { endUsersErrors } from './errors.ts';
import type { EndUserImports } from './imports.service.ts';
import { endUsersInternalRefs } from './internal-refs.ts';
import { SEND_INVITES_JOB, type SendInvitesJob } from './invite-job.ts';
import type { EndUserDto, EndUserPage, EndUserQuery, EndUsersService as EndUsersServiceApi } from './service-interfaces.ts';

/** Re-sending an end user's invite: at most once per this many seconds per end user (429 sooner). */
export const RESEND_INTERVAL_SECONDS = 60;

/**
 * `endusers.endUsers`: list and search, create (through the import path), re-send, suspend,
 * activate, delete and remove access. Every query filters by the organization; other
 * organizations' ids look absent (404). Every change is audited in its transaction.
 * @see docs/api/endusers.md
 */
@injectable()
export class EndUsersService implements EndUsersServiceApi {
  private readonly resends: RateLimiter;

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.jobs.id) private readonly jobs: JobsService,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
    @inject(endUsersInternalRefs.imports.id) private readonly imports: EndUserImports,
  ) {
    this.resends = rateLimits.limiter({ name: 'endusers.resend-invite', points: 1, durationSeconds: RESEND_INTERVAL_SECONDS });
  }

  async list(orgId: string, query: EndUserQuery): Promise<EndUserPage> {
    const filtered = this.db.knex(`${END_USERS} as u`).where('u.orgId', orgId);
    if (query.status) filtered.where('u.status', query.status);
    // The trigram index on the stored search column (NFC, lowercase email and display name) serves this.
    if (query.search) filtered.whereRaw(`u.search_text like ? escape '\\'`, [likeSubstring(query.search)]);
    if (query.appGroupId) filtered.whereExists((q) => q.from(`${ACCESS} as a`).whereRaw('a.end_user_id = u.id').where('a.appGroupId', query.appGroupId!));
    const [{ total }] = await filtered.clone().count({ total: '*' });
    const newestFirst = (t: string) => [{ column: `${t}.createdAt`, order: 'desc' }, { column: `${t}.id`, order: 'desc' }];
    const offset = (query.page - 1) * query.pageSize;
    // A search finds its matches once through the trigram index (a materialized CTE), then pages
    // them: left to itself the planner walks the newest-first index and filters, reading most of a
    // large organization for a term whose matches are old.
    const rows = (await (query.search
      ? this.db.knex.withMaterialized('m', filtered.select('u.id', 'u.createdAt'))
        .from(this.db.knex('m').select('id', 'createdAt').orderBy(newestFirst('m')).limit(query.pageSize).offset(offset).as('p'))
        .join(`${END_USERS} as u`, 'u.id', 'p.id').select(END_USER_COLUMNS.map((c) => `u.${c}`)).orderBy(newestFirst('p'))
      : filtered.select(END_USER_COLUMNS.map((c) => `u.${c}`)).orderBy(newestFirst('u')).limit(query.pageSize).offset(offset))) as EndUserRow[];
    return { endUsers: await this.withGroups(orgId, rows), page: query.page, pageSize: query.pageSize, total: Number(total) };
  }

  async get(orgId: string, endUserId: string): Promise<EndUserDto | undefined> {
    const row = (await this.db.knex(END_USERS).where({ orgId, id: endUserId }).first(...END_USER_COLUMNS)) as EndUserRow | undefined;
    return row && (await this.withGroups(orgId, [row]))[0];
  }

  async create(orgId: string, input: { email: string; displayName?: string; appGroupId: string }): Promise<EndUserDto> {
    const [row] = await this.imports.write(orgId, { appGroupId: input.appGroupId, source: 'dashboard', sendInvites: true, users: [input] }, false, 'admin');
    if (row.result === 'invalid') throw endUsersErrors.invalidRow(row.reason === 'email_invalid' ? 'email' : 'displayName');
    if (row.result !== 'created') throw endUsersErrors.endUserExists(row.endUserId!);
    return (await this.get(orgId, row.endUserId!))!;
  }

  async resendInvite(orgId: string, endUserId: string): Promise<EndUserDto> {
    const before = await this.get(orgId, endUserId);
    if (!before) throw endUsersErrors.endUserNotFound();
    if (before.status !== 'Pending') throw endUsersErrors.statusConflict(before.status, 're-invited');
    await this.resends.consume(endUserId);
    await this.db.transaction(async (trx) => {
      const row = await this.lock(trx, orgId, endUserId);
      if (row.status !== 'Pending') throw endUsersErrors.statusConflict(row.status, 're-invited');
      const appGroupId = before.appGroupIds[0] ?? null;
      await this.audit.append(trx, { orgId, eventType: 'org.end_user.invite_resent', businessData: { endUserId, email: row.email } });
      await this.jobs.send<SendInvitesJob>(SEND_INVITES_JOB, { orgId, appGroupId, endUserIds: [endUserId] }, { trx });
    });
    return before;
  }

  suspend(orgId: string, endUserId: string): Promise<EndUserDto> {
    return this.transition(orgId, endUserId, 'suspend', 'org.end_user.suspended');
  }

  activate(orgId: string, endUserId: string): Promise<EndUserDto> {
    return this.transition(orgId, endUserId, 'activate', 'org.end_user.activated');
  }

  async delete(orgId: string, endUserId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const row = await this.lock(trx, orgId, endUserId);
      const access: Array<{ appGroupId: string }> = await trx(ACCESS).where({ orgId, endUserId }).delete().returning('appGroupId');
      await trx(END_USERS).where({ orgId, id: endUserId }).delete();
      await this.audit.append(trx, { orgId, eventType: 'org.end_user.deleted', businessData: { endUserId, badge: row.badge, email: row.email, appGroupIds: access.map((a) => a.appGroupId) } });
    });
  }

  async removeAccess(orgId: string, endUserId: string, appGroupId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await this.lock(trx, orgId, endUserId);
      const removed = await trx(ACCESS).where({ orgId, endUserId, appGroupId }).delete().returning('appGroupId');
      if (removed.length === 0) throw endUsersErrors.accessNotFound();
      await this.audit.append(trx, { orgId, appGroupId, eventType: 'org.end_user.access_removed', businessData: { endUserId, appGroupId } });
    });
  }

  /**
   * Removes every access row of a deleted app group (on the apps plugin's `org.app_group.deleted`),
   * one `org.end_user.access_removed` event per end user, with `reason: app_group_deleted`.
   */
  async forgetAppGroup(orgId: string, appGroupId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const removed: string[] = await trx(ACCESS).where({ orgId, appGroupId }).delete().returning('endUserId').then((rows: Array<{ endUserId: string }>) => rows.map((r) => r.endUserId));
      await this.audit.appendMany(trx, removed.map((endUserId) => ({
        orgId, appGroupId, actor: { type: 'system', id: 'system' }, eventType: 'org.end_user.access_removed', businessData: { endUserId, appGroupId, reason: 'app_group_deleted' },
      })));
    });
  }

  private async transition(orgId: string, endUserId: string, action: 'suspend' | 'activate', eventType: string): Promise<EndUserDto> {
    await this.db.transaction(async (trx) => {
      const row = await this.lock(trx, orgId, endUserId);
      const status = nextStatus(row, action);
      if (!status) throw endUsersErrors.statusConflict(row.status, action === 'suspend' ? 'suspended' : 'activated');
      await trx(END_USERS).where({ orgId, id: endUserId }).update({ status, updatedAt: this.clock.now() });
      await this.audit.append(trx, { orgId, eventType, businessData: { endUserId, email: row.email, previousStatus: row.status, status } });
    });
    return (await this.get(orgId, endUserId))!;
  }

  /** The end user's row, locked for the transaction. @throws 404 */
  private async lock(trx: Knex.Transaction, orgId: string, endUserId: string): Promise<EndUserRow> {
    const row = (await trx(END_USERS).where({ orgId, id: endUserId }).forUpdate().first(...END_USER_COLUMNS)) as EndUserRow | undefined;
    if (!row) throw endUsersErrors.endUserNotFound();
    return row;
  }

  /** DTOs of `rows` with each one's app groups (oldest access first), in one query. */
  private async withGroups(orgId: string, rows: EndUserRow[]): Promise<EndUserDto[]> {
    if (rows.length === 0) return [];
    const access: Array<{ endUserId: string; appGroupId: string }> = await this.db.knex(ACCESS)
      .where({ orgId }).whereIn('endUserId', rows.map((r) => r.id)).orderBy(['grantedAt', 'appGroupId']).select('endUserId', 'appGroupId');
    const groups = new Map<string, string[]>();
    for (const a of access) groups.set(a.endUserId, [...(groups.get(a.endUserId) ?? []), a.appGroupId]);
    return rows.map((r) => endUserDto(r, groups.get(r.id) ?? []));
  }
}

/** `search` as a LIKE pattern matching it anywhere, in the search column's form (NFC, lowercase). */
function likeSubstring(search: string): string {
  return `%${search.normalize('NFC').toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
