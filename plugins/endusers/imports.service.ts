import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditEventInput, type AuditService, type Clock, type CryptoService, type Database, type JobsService } from '../../core/index.ts';
import { appsRefs, type AppGroupsService } from '../apps/api.ts';
import { ACCESS, BADGE_PREFIX, END_USERS } from './end-user-record.ts';
import { endUsersErrors } from './errors.ts';
import { screenRows, type AcceptedRow } from './import-rows.ts';
import { SEND_INVITES_JOB, type SendInvitesJob } from './invite-job.ts';
import type { EndUserCreatedVia, EndUserImportsService, ImportRequest, ImportRowResult } from './service-interfaces.ts';

/**
 * `endusers.imports`: writes a request's end users with one multi-row `INSERT … ON CONFLICT DO
 * NOTHING RETURNING`, looks the conflicting ones up, grants app-group access with one more insert,
 * appends the audit events with one `appendMany` and queues one invite job for the new end users,
 * all in one transaction. Each row is answered on its own; one refused row never stops the others.
 * @see docs/api/endusers.md "Bulk import"
 */
@injectable()
export class EndUserImports implements EndUserImportsService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.jobs.id) private readonly jobs: JobsService,
    @inject(appsRefs.appGroups.id) private readonly appGroups: AppGroupsService,
  ) {}

  import(orgId: string, request: ImportRequest): Promise<ImportRowResult[]> {
    return this.write(orgId, request, true, 'import');
  }

  /**
   * The import; with `grantExisting` false an existing end user is answered `duplicate` and left
   * unchanged (the single create). `via` says in the audit events who asked: a member one at a time
   * (`admin`), an import (`import`), or the person's own first sign-in (`self_signup`).
   */
  async write(orgId: string, request: ImportRequest, grantExisting: boolean, via: EndUserCreatedVia): Promise<ImportRowResult[]> {
    if (!(await this.appGroups.exists(orgId, request.appGroupId))) throw endUsersErrors.unknownAppGroup();
    const { accepted, refused } = screenRows(request.users);
    const results = refused;
    if (accepted.length > 0) results.push(...(await this.db.transaction((trx) => this.insert(trx, orgId, request, accepted, grantExisting, via))));
    return results.sort((a, b) => a.index - b.index);
  }

  private async insert(
    trx: Knex.Transaction, orgId: string, request: ImportRequest, rows: AcceptedRow[], grantExisting: boolean, via: EndUserCreatedVia,
  ): Promise<ImportRowResult[]> {
    const now = this.clock.now();
    const { appGroupId, source } = request;
    // Rows go in address order, and access rows in id order: two imports of the same addresses then
    // wait on each other's unique keys in one order, never in a cycle (a deadlock on a server).
    const byAddress = [...rows].sort((a, b) => (a.emailNormalized < b.emailNormalized ? -1 : a.emailNormalized > b.emailNormalized ? 1 : 0));
    const created = await this.insertEndUsers(trx, orgId, source, now, byAddress);
    const createdBy = new Map(created.map((c) => [c.emailNormalized, c]));
    const conflicting = rows.filter((r) => !createdBy.has(r.emailNormalized)).map((r) => r.emailNormalized);
    const existing: Array<{ id: string; emailNormalized: string }> = conflicting.length === 0 ? [] : await trx(END_USERS)
      // Key-share locked: a concurrent delete waits, so no access row outlives its end user.
      .where({ orgId }).whereIn('emailNormalized', conflicting).forKeyShare().select('id', 'emailNormalized');
    const existingBy = new Map(existing.map((e) => [e.emailNormalized, e.id]));
    const grantTo = [...created.map((c) => c.id), ...(grantExisting ? existing.map((e) => e.id) : [])].sort();
    // One statement whatever the row count: the ids travel as one array parameter.
    const granted: Array<{ endUserId: string }> = grantTo.length === 0 ? [] : (await trx.raw(
      `insert into ${ACCESS} (end_user_id, app_group_id, org_id, granted_at) select unnest(?::uuid[]), ?, ?, ?
       on conflict (end_user_id, app_group_id) do nothing returning end_user_id as "endUserId"`,
      [grantTo, appGroupId, orgId, now],
    )).rows;
    const grantedIds = new Set(granted.map((g) => g.endUserId));

    const events: AuditEventInput[] = [];
    const results = rows.map((r): ImportRowResult => {
      const made = createdBy.get(r.emailNormalized);
      if (made) {
        events.push({ orgId, appGroupId, eventType: 'org.end_user.created', businessData: { endUserId: made.id, badge: made.badge, email: r.email, appGroupId, source, via } });
        return { index: r.index, email: r.email, result: 'created', endUserId: made.id };
      }
      const endUserId = existingBy.get(r.emailNormalized)!;
      const accessGranted = grantedIds.has(endUserId);
      if (accessGranted) events.push({ orgId, appGroupId, eventType: 'org.end_user.access_granted', businessData: { endUserId, appGroupId, source, via } });
      return { index: r.index, email: r.email, result: 'duplicate', reason: 'exists', endUserId, accessGranted };
    });
    if (events.length > 0) await this.audit.appendMany(trx, events);
    if (request.sendInvites && created.length > 0) {
      await this.jobs.send<SendInvitesJob>(SEND_INVITES_JOB, { orgId, appGroupId, endUserIds: created.map((c) => c.id) }, { trx });
    }
    return results;
  }

  /**
   * The one multi-row insert of the end users (`INSERT … SELECT FROM unnest(…) ON CONFLICT DO
   * NOTHING RETURNING`: one array parameter per column, so its cost does not grow with bindings).
   * The only code that writes the dormant password hashes; nothing reads them.
   * @returns the rows inserted (a conflicting address is left out).
   */
  private async insertEndUsers(
    trx: Knex.Transaction, orgId: string, source: string, now: Date, rows: AcceptedRow[],
  ): Promise<Array<{ id: string; badge: string; emailNormalized: string }>> {
    const column = (f: (r: AcceptedRow) => unknown) => rows.map(f);
    const { rows: created } = await trx.raw(
      `insert into ${END_USERS} (id, org_id, badge, email, email_normalized, display_name, status, password_hash, password_hash_algorithm, source, created_at, updated_at)
       select u.id, ?, u.badge, u.email, u.email_normalized, u.display_name, 'Pending', u.password_hash, u.password_hash_algorithm, ?, ?, ?
       from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
         as u(id, badge, email, email_normalized, display_name, password_hash, password_hash_algorithm)
       on conflict (org_id, email_normalized) do nothing returning id, badge, email_normalized as "emailNormalized"`,
      [
        orgId, source, now, now, column(() => randomUUID()), column(() => BADGE_PREFIX + this.crypto.randomToken(16)), column((r) => r.email),
        column((r) => r.emailNormalized), column((r) => r.displayName), column((r) => r.passwordHash), column((r) => r.passwordHashAlgorithm),
      ] as Knex.RawBinding[],
    );
    return created;
  }
}
