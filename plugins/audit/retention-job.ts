import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  DAY_MS, GENESIS_HASH, decodeDayFile, utcDay, verifyCheckpoint, verifyDayFile, type AuditLog, type AuditService, type BlobStore, type Clock, type Database,
  type JobsService, type MailMessage, type Mailer,
} from '../../core/index.ts';
import type { AccountsService } from '../accounts/api.ts';
import type { EntitlementsService, MembershipsService, OrganizationsService } from '../orgs/api.ts';
import { scheduleNightly } from './nightly-job.ts';
import { readPurgeHorizon, writePurgeHorizon } from './purge-horizon.ts';
import { GRACE_DAYS, NOTICE_COUNT, NOTICE_INTERVAL_DAYS, cohortPurgeAt, type OpenCohort } from './retention-schedule.ts';

/** The daily retention job's name. @see docs/audit.md "Retention" */
export const RETENTION_JOB = 'audit.enforce-retention';
/** Actor of the notice and purge events. */
export const RETENTION_ACTOR = { type: 'system' as const, id: 'audit.retention' };

const MANIFEST = 'audit.day_files';
const COHORTS = 'audit.retention_cohorts';

/** A stored purge cohort (`audit.retention_cohorts`). */
export interface CohortRow extends OpenCohort {
  orgId: string;
  cohort: number;
  purgedAt: Date | null;
}

/**
 * What one organization's run did: notices sent (`first`/`final`), the purge (seq range, rows,
 * day files), and `blocked` — why the purge stopped before the cohort was done (a day without a
 * day file, a missing or corrupt day file, hot rows that differ from the archive); logged.
 */
export interface RetentionOrgReport {
  orgId: string;
  notices: Array<'first' | 'final'>;
  purged?: { fromSeq: number; throughSeq: number; rows: number; days: string[] };
  blocked?: string;
}

/** Services the retention enforcement uses. */
export interface RetentionDeps {
  db: Database;
  clock: Clock;
  log: AuditLog;
  audit: AuditService;
  blob: BlobStore;
  mail: Mailer;
  entitlements: Pick<EntitlementsService, 'retentionDays'>;
  organizations: Pick<OrganizationsService, 'findById'>;
  memberships: Pick<MembershipsService, 'list'>;
  accounts: Pick<AccountsService, 'findById'>;
  logger: Logger;
}

/**
 * Retention enforcement for organizations with a limited retention plan: notices to the Owners on
 * the schedule, then the purge of whole archived days from the hot table — moved, never lost.
 *
 * A purge cohort starts when the organization's oldest hot event has left the query window: the
 * first notice is sent then (its row in `audit.retention_cohorts` claims it) and covers every event
 * that occurred up to now − retentionDays; the final notice follows {@link NOTICE_INTERVAL_DAYS}
 * later; from {@link GRACE_DAYS} after the first notice ({@link cohortPurgeAt}) the cohort's days
 * are purged. A day (a sealedAt-cut day file) is purged whole, and only when every record in it
 * occurred up to the cohort's cut-off and at least retentionDays + GRACE_DAYS ago (by the current
 * plan). Only days in the manifest, only a contiguous prefix of the chain from the purge horizon,
 * only after the day file was read back from the blob store, its SHA-256 matched the manifest, it
 * verified in full (records, links, checkpoints) and the hot rows equal it.
 * @see docs/audit.md "Retention"
 */
export class RetentionEnforcer {
  constructor(private readonly deps: RetentionDeps) {}

  /**
   * The daily run over every organization with a day file: each organization's notices and purge;
   * a failure is logged and the others go on.
   * @returns one report per organization handled, and the failures (`error` is the message).
   */
  async runAll(): Promise<{ reports: RetentionOrgReport[]; failed: Array<{ orgId: string; error: string }> }> {
    const orgIds = (await this.deps.db.knex(MANIFEST).distinct('orgId').orderBy('orgId')).map((r: { orgId: string }) => r.orgId);
    const reports: RetentionOrgReport[] = [];
    const failed: Array<{ orgId: string; error: string }> = [];
    for (const orgId of orgIds) {
      try {
        reports.push(await this.enforce(orgId));
      } catch (err) {
        failed.push({ orgId, error: (err as Error).message });
        this.deps.logger.error({ err, orgId }, 'audit retention failed for an organization; the others go on');
      }
    }
    return { reports, failed };
  }

  /**
   * One organization: sends the notices that are due (each once per cohort), then purges the
   * cohort's due days when its purge time has come. Unlimited plans are skipped.
   * @param orgId - organization id.
   * @returns {@link RetentionOrgReport}.
   * @throws Error on database, mail or blob-store errors (a missing or corrupt day file is `blocked`, not thrown).
   */
  async enforce(orgId: string): Promise<RetentionOrgReport> {
    const { clock, log } = this.deps;
    const report: RetentionOrgReport = { orgId, notices: [] };
    const retentionDays = await this.deps.entitlements.retentionDays(orgId);
    if (retentionDays === null) return report;
    const now = clock.now();
    let cohort = await this.openCohort(orgId);
    const oldest = await log.oldestOccurredAt(orgId);
    if (!cohort && oldest && now.getTime() >= oldest.getTime() + retentionDays * DAY_MS) {
      if (await this.sendFirstNotice(orgId, retentionDays, oldest, now)) report.notices.push('first');
      cohort = await this.openCohort(orgId);
    }
    if (cohort && !cohort.finalNoticeAt && now.getTime() >= cohort.firstNoticeAt.getTime() + (NOTICE_COUNT - 1) * NOTICE_INTERVAL_DAYS * DAY_MS) {
      if (await this.sendFinalNotice(cohort, retentionDays, oldest, now)) report.notices.push('final');
      cohort = await this.openCohort(orgId);
    }
    const purgeAt = cohort ? cohortPurgeAt(cohort) : null;
    if (cohort && purgeAt && now.getTime() >= purgeAt.getTime()) await this.purge(cohort, retentionDays, now, report);
    return report;
  }

  /** The organization's open cohort (first notice sent, not purged yet), or undefined. */
  async openCohort(orgId: string): Promise<CohortRow | undefined> {
    const row = await this.deps.db.knex(COHORTS).where({ orgId }).whereNull('purgedAt').orderBy('cohort', 'desc').first();
    return row ? toCohort(row) : undefined;
  }

  private async ownerEmails(orgId: string): Promise<string[]> {
    const owners = (await this.deps.memberships.list(orgId, ['active'])).filter((m) => m.role === 'Owner');
    const accounts = await Promise.all(owners.map((m) => this.deps.accounts.findById(m.accountId)));
    return accounts.flatMap((a) => (a ? [a.email] : []));
  }

  private async sendFirstNotice(orgId: string, retentionDays: number, oldest: Date, now: Date): Promise<boolean> {
    const { db } = this.deps;
    const last = await db.knex(COHORTS).where({ orgId }).max({ n: 'cohort' }).first();
    const number = Number(last?.n ?? 0) + 1;
    const cohort: CohortRow = {
      orgId, cohort: number, throughOccurredAt: new Date(now.getTime() - retentionDays * DAY_MS), firstNoticeAt: now, finalNoticeAt: null,
      purgeAt: new Date(now.getTime() + GRACE_DAYS * DAY_MS), purgedAt: null,
    };
    return this.notify(cohort, 'first', retentionDays, oldest, async (trx) => {
      const claimed = await trx(COHORTS)
        .insert({ orgId, cohort: number, throughOccurredAt: cohort.throughOccurredAt, purgeAt: cohort.purgeAt, firstNoticeAt: now })
        .onConflict(['orgId', 'cohort']).ignore().returning('cohort');
      return claimed.length > 0;
    });
  }

  private async sendFinalNotice(cohort: CohortRow, retentionDays: number, oldest: Date | undefined, now: Date): Promise<boolean> {
    const final = { ...cohort, finalNoticeAt: now };
    return this.notify(final, 'final', retentionDays, oldest, async (trx) => {
      const claimed = await trx(COHORTS).where({ orgId: cohort.orgId, cohort: cohort.cohort }).whereNull('finalNoticeAt').update({ finalNoticeAt: now }).returning('cohort');
      return claimed.length > 0;
    });
  }

  /**
   * Claims a notice (`claim` inside the transaction: false when another run sent it), records the
   * `org.audit.retention_notice_sent` event and mails every Owner — all before the commit, so a mail
   * failure rolls the claim back and the next run retries.
   */
  private async notify(
    cohort: CohortRow, notice: 'first' | 'final', retentionDays: number, oldest: Date | undefined, claim: (trx: Knex.Transaction) => Promise<boolean>,
  ): Promise<boolean> {
    const { db, audit, mail, organizations, logger } = this.deps;
    const org = await organizations.findById(cohort.orgId);
    const owners = await this.ownerEmails(cohort.orgId);
    const purgeAt = cohortPurgeAt({ ...cohort, finalNoticeAt: cohort.finalNoticeAt ?? new Date(cohort.firstNoticeAt.getTime() + NOTICE_INTERVAL_DAYS * DAY_MS) })!;
    const sent = await db.transaction(async (trx) => {
      if (!(await claim(trx))) return false;
      await audit.append(trx, {
        orgId: cohort.orgId, eventType: 'org.audit.retention_notice_sent', actor: RETENTION_ACTOR, occurredAt: this.deps.clock.now(),
        businessData: {
          notice, cohort: cohort.cohort, throughOccurredAt: cohort.throughOccurredAt.toISOString(), purgeScheduledAt: purgeAt.toISOString(),
          retentionDays, recipients: owners.length,
        },
      });
      for (const to of owners) {
        await mail.send(retentionNoticeMail({
          to, notice, orgName: org?.name ?? cohort.orgId, orgSlug: org?.slug ?? '', retentionDays,
          fromDay: utcDay(oldest ?? cohort.throughOccurredAt), throughOccurredAt: cohort.throughOccurredAt, purgeAt,
        }));
      }
      return true;
    });
    if (sent) logger.info({ orgId: cohort.orgId, cohort: cohort.cohort, notice, recipients: owners.length }, 'audit retention notice sent');
    return sent;
  }

  private async purge(cohort: CohortRow, retentionDays: number, now: Date, report: RetentionOrgReport): Promise<void> {
    const { db, log, logger } = this.deps;
    const orgId = cohort.orgId;
    const cutoff = Math.min(cohort.throughOccurredAt.getTime(), now.getTime() - (retentionDays + GRACE_DAYS) * DAY_MS);
    const horizon = await readPurgeHorizon(db.knex, orgId);
    const start = horizon?.throughSeq ?? 0;
    let cursor = start;
    let prevHash = horizon?.chainHash ?? GENESIS_HASH;
    const rows = await db.knex(MANIFEST).where({ orgId }).andWhere('lastSeq', '>', start).orderBy('firstSeq');
    const jwks = await log.jwks();
    const batch: Array<{ day: string; rowCount: number; lastSeq: number; headHash: string; sealedAt: string; jws: string }> = [];
    let done = true;
    for (const row of rows) {
      const day = row.day as string;
      if (Number(row.firstSeq) !== cursor + 1) break; // the next records have no day file: see below
      const verdict = await this.verifiedDay(orgId, row, prevHash, jwks, cutoff);
      if (verdict === 'not_due') break;
      if (typeof verdict === 'string') {
        report.blocked = `day ${day}: ${verdict}`;
        break;
      }
      batch.push({ day, rowCount: Number(row.rowCount), lastSeq: Number(row.lastSeq), headHash: row.headHash, sealedAt: verdict.sealedAt, jws: verdict.jws });
      cursor = Number(row.lastSeq);
      prevHash = row.headHash;
    }
    if (!report.blocked) {
      // Stopped at the end of the manifest, a gap or a day not due: done only when the next hot record is not due either.
      const [next] = await log.records(orgId, { fromSeq: cursor + 1, toSeq: cursor + 1 });
      if (next && Date.parse(next.occurredAt) <= cutoff && !rows.some((r: { firstSeq: unknown }) => Number(r.firstSeq) === cursor + 1)) {
        report.blocked = `seq ${cursor + 1} (sealed ${next.sealedAt}) is due but no day file holds it yet`;
      }
    }
    if (report.blocked) {
      done = false;
      logger.error({ orgId, cohort: cohort.cohort, reason: report.blocked }, 'audit retention purge stopped for this organization');
    }
    if (!batch.length && !done) return;
    const rowsPurged = batch.reduce((n, d) => n + d.rowCount, 0);
    await db.transaction(async (trx) => {
      if (batch.length) {
        const deleted = await log.purgeRange(trx, orgId, start + 1, cursor);
        if (deleted !== rowsPurged) throw new Error(`audit retention ${orgId}: deleted ${deleted} rows for seq ${start + 1}..${cursor}, the day files hold ${rowsPurged} (another runner?)`);
        const last = batch.at(-1)!;
        await writePurgeHorizon(trx, {
          orgId, throughSeq: cursor, chainHash: last.headHash, sealedAt: last.sealedAt, day: last.day, checkpointJws: last.jws,
          purgedRows: (horizon?.purgedRows ?? 0) + rowsPurged, updatedAt: now,
        });
        await this.deps.audit.append(trx, {
          orgId, eventType: 'org.audit.retention_purged', actor: RETENTION_ACTOR, occurredAt: now,
          businessData: {
            cohort: cohort.cohort, fromSeq: start + 1, throughSeq: cursor, rows: rowsPurged, days: batch.length, firstDay: batch[0].day, lastDay: last.day,
            horizonChainHash: last.headHash,
          },
        });
      }
      if (done) await trx(COHORTS).where({ orgId, cohort: cohort.cohort }).update({ purgedAt: now });
    });
    if (batch.length) {
      report.purged = { fromSeq: start + 1, throughSeq: cursor, rows: rowsPurged, days: batch.map((d) => d.day) };
      logger.info({ orgId, ...report.purged, days: batch.length }, 'audit retention purged archived days from the hot store');
    }
  }

  /**
   * Reads one day file back from the blob store and checks it before its hot rows may go: SHA-256
   * against the manifest, full verification (records, links, embedded checkpoints, one on the last
   * record), metadata against the manifest and the previous day's head, every record occurred up
   * to `cutoff`, and the hot rows equal the file's records.
   * @returns the last record's sealedAt and the checkpoint on it; `'not_due'`; or why it is blocked.
   */
  private async verifiedDay(
    orgId: string, row: Record<string, any>, prevHash: string, jwks: Awaited<ReturnType<AuditLog['jwks']>>, cutoff: number,
  ): Promise<{ sealedAt: string; jws: string } | string> {
    const { blob, log } = this.deps;
    const object = await blob.get(row.blobKey);
    if (!object) return `day file ${row.blobKey} is missing from the blob store`;
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    const bytes = Buffer.concat(chunks);
    const sha256 = hash('sha256', bytes, 'hex');
    if (sha256 !== row.sha256) return `day file SHA-256 ${sha256} differs from the manifest's ${row.sha256}`;
    const verified = await verifyDayFile(bytes, jwks);
    if (!verified.ok) return `day file does not verify: ${verified.failure?.reason} ${verified.failure?.detail ?? ''}`.trim();
    const meta = verified.meta!;
    const firstSeq = Number(row.firstSeq);
    const lastSeq = Number(row.lastSeq);
    if (meta.orgId !== orgId || meta.day !== row.day || meta.firstSeq !== firstSeq || meta.lastSeq !== lastSeq || meta.headHash !== row.headHash) {
      return 'day file metadata differs from the manifest';
    }
    if (meta.prevHash !== prevHash) return `day file prevHash ${meta.prevHash} does not continue the chain at ${prevHash}`;
    const { records } = await decodeDayFile(bytes);
    if (records.some((r: { occurredAt: string }) => Date.parse(r.occurredAt) > cutoff)) return 'not_due';
    const hot = await log.records(orgId, { fromSeq: firstSeq, toSeq: lastSeq });
    if (hot.length !== records.length || hot.some((h, i) => h.chainHash !== records[i].chainHash || h.payloadHash !== records[i].payloadHash || h.seq !== records[i].seq)) {
      return `the hot rows of seq ${firstSeq}..${lastSeq} differ from the day file (rewritten or missing rows are kept as evidence)`;
    }
    for (const jws of meta.checkpoints) {
      const claims = await verifyCheckpoint(jws, jwks).catch(() => undefined);
      if (claims?.seq === lastSeq && claims.orgId === orgId && claims.chainHash === meta.headHash) return { sealedAt: claims.sealedAt, jws };
    }
    return `no signed checkpoint on seq ${lastSeq} in the day file`;
  }
}

function toCohort(r: Record<string, any>): CohortRow {
  return {
    orgId: r.orgId, cohort: Number(r.cohort), throughOccurredAt: new Date(r.throughOccurredAt), purgeAt: new Date(r.purgeAt),
    firstNoticeAt: new Date(r.firstNoticeAt), finalNoticeAt: r.finalNoticeAt ? new Date(r.finalNoticeAt) : null, purgedAt: r.purgedAt ? new Date(r.purgedAt) : null,
  };
}

/**
 * The retention notice mailed to each Owner: which events leave the hot store when, and that they
 * stay in the archive (day files, `GET /api/v1/admin/audit/compact/urls`).
 * @param input - recipient, `first`/`final`, organization, retention days, the cohort's days and times.
 */
export function retentionNoticeMail(input: {
  to: string; notice: 'first' | 'final'; orgName: string; orgSlug: string; retentionDays: number; fromDay: string; throughOccurredAt: Date; purgeAt: Date;
}): MailMessage {
  const through = input.throughOccurredAt.toISOString();
  const purge = input.purgeAt.toISOString();
  const which = input.notice === 'first' ? `Notice 1 of ${NOTICE_COUNT}` : `Final notice (${NOTICE_COUNT} of ${NOTICE_COUNT})`;
  const urls = `/api/v1/admin/audit/compact/urls?orgSlug=${encodeURIComponent(input.orgSlug)}&from=${input.fromDay}&to=${utcDay(input.throughOccurredAt)}`;
  return {
    to: input.to,
    subject: `${input.notice === 'first' ? '' : 'Final notice: '}Audit events of ${input.orgName} up to ${through.slice(0, 10)} leave the hot store on ${purge.slice(0, 10)}`,
    text: [
      `${which} for ${input.orgName}.`,
      '',
      `Audit events of ${input.orgName} that occurred up to ${through} are past your plan's retention window (${input.retentionDays} day${input.retentionDays === 1 ? '' : 's'}).`,
      `From ${purge} they leave the hot store: whole archived days are removed from the database and no longer answer queries.`,
      '',
      'They are not lost. They stay in the archive: one day file per UTC day (Parquet, with the chain hashes and signed checkpoints),',
      `listed with download links by GET ${urls}`,
      'and verifiable offline with `aerie audit verify-file`. The remaining chain still verifies across the purge.',
      '',
    ].join('\n'),
    headers: { 'X-Aerie-Template': `audit-retention-${input.notice}` },
  };
}

/**
 * `audit.enforce-retention`, daily at 00:35 UTC, after `audit.compact-days` (00:05; a nightly schedule,
 * `./nightly-job.ts`): runs {@link RetentionEnforcer.runAll}; an organization that failed makes the
 * run throw after the others are done, so it is retried; notices and purged days are never repeated.
 * @see docs/audit.md "Retention"
 */
export function scheduleRetention(jobs: JobsService, enforcer: Pick<RetentionEnforcer, 'runAll'>): void {
  scheduleNightly(jobs, RETENTION_JOB, '35 0 * * *', async () => (await enforcer.runAll()).failed.map((f) => `${f.orgId}: ${f.error}`));
}
