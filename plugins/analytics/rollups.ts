import type { Logger } from 'pino';
import { DAY_MS, dayStartMs, utcDay, type Clock, type Database } from '../../core/index.ts';
import type { DayFileRow, DayFiles } from '../audit/api.ts';
import type { DayRollup } from './day-rollup.ts';
import type { RollupFn } from './rollup-tasks.ts';
import type { EventCollection } from './event-collection.ts';

/** Days back the nightly run looks for day files without rollups (backfill). @see docs/api/audit-analytics.md */
export const ROLLUP_BACKFILL_DAYS = 90;
/** How long a completed day's rollup stays cached (ms): 7 days. @see docs/api/audit-analytics.md */
export const CACHE_DAY_MS = 7 * DAY_MS;
/** How long a missing day is remembered (ms): 10 minutes. */
export const CACHE_MISSING_MS = 10 * 60_000;
/** Most cached days, all organizations together; the oldest entries leave first. */
const CACHE_MAX_ENTRIES = 200_000;
/** The `app_group_id` of an organization-wide rollup. */
export const WHOLE_ORG = '';

/** Outcome of {@link RollupBuilder.buildPending}: the days rolled up and the failures. */
export interface RollupReport {
  written: Array<{ orgId: string; day: string }>;
  failed: Array<{ orgId: string; day: string; error: string }>;
}

/**
 * Builds daily rollups from the audit archive's day files: every day file of the last
 * {@link ROLLUP_BACKFILL_DAYS} days without a rollup is read through the audit archive, checked
 * against the manifest's SHA-256 (a file altered in the store is refused, nothing written), rolled
 * up in the worker pool and written once — the organization's row and one per app group, in one
 * transaction, `on conflict do nothing` (none for an app group whose event collection is off).
 * @see docs/api/audit-analytics.md "Rollups"
 */
export class RollupBuilder {
  constructor(private readonly deps: { db: Database; archive: DayFiles; clock: Clock; logger: Logger; rollup: RollupFn; collection: EventCollection }) {}

  /**
   * The nightly run (and its backfill): a failing day is logged and reported; the others go on.
   * @returns {@link RollupReport}.
   */
  async buildPending(): Promise<RollupReport> {
    const from = utcDay(dayStartMs(utcDay(this.deps.clock.now())) - ROLLUP_BACKFILL_DAYS * DAY_MS);
    const done = new Set((await this.deps.db.knex('analytics.rollups').where({ appGroupId: WHOLE_ORG }).andWhere('day', '>=', from).select('orgId', 'day'))
      .map((r: { orgId: string; day: string }) => `${r.orgId}/${r.day}`));
    const pending = (await this.deps.archive.dayFilesSince(from)).filter((f) => !done.has(`${f.orgId}/${f.day}`));
    const report: RollupReport = { written: [], failed: [] };
    for (const file of pending) {
      try {
        await this.buildDay(file);
        report.written.push({ orgId: file.orgId, day: file.day });
      } catch (err) {
        report.failed.push({ orgId: file.orgId, day: file.day, error: (err as Error).message });
        this.deps.logger.error({ err, orgId: file.orgId, day: file.day }, 'audit rollup failed; retried on the next run');
      }
    }
    return report;
  }

  /**
   * Rolls one day file up and writes its rows.
   * @throws Error when the stored file is missing, its SHA-256 differs from the manifest's, or it
   *   names another organization or day (nothing is written).
   */
  async buildDay(file: DayFileRow): Promise<void> {
    const bytes = await this.deps.archive.readFile(file);
    const result = await this.deps.rollup(bytes);
    if (result.orgId !== file.orgId || result.day !== file.day) throw new Error(`audit day file ${file.blobKey} names ${result.orgId} ${result.day}`);
    const createdAt = this.deps.clock.now();
    const off = await this.deps.collection.disabled(file.orgId);
    const rows = [[WHOLE_ORG, result.rollups.org] as const, ...Object.entries(result.rollups.appGroups).filter(([id]) => !off.has(id))].map(([appGroupId, body]) => ({
      orgId: file.orgId, appGroupId, day: file.day, body: JSON.stringify(body), dayFileSha256: file.sha256, createdAt,
    }));
    await this.deps.db.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await trx('analytics.rollups').insert(rows.slice(i, i + 500)).onConflict(['orgId', 'appGroupId', 'day']).ignore();
    });
  }
}

/**
 * Reads rollups through a per-process cache: a completed day's rollup is kept up to
 * {@link CACHE_DAY_MS}, a day without one is remembered {@link CACHE_MISSING_MS}; the uncached days
 * of a request are read in one statement.
 * @see docs/api/audit-analytics.md "Rollup cache"
 */
export class RollupReader {
  private readonly cache = new Map<string, { body: DayRollup | undefined; until: number }>();

  constructor(private readonly db: Database, private readonly clock: Clock) {}

  /**
   * The rollups of `days` for the organization (or one app group).
   * @param appGroupId - an app group id, or {@link WHOLE_ORG}.
   * @returns day → rollup, for the days that have one.
   */
  async days(orgId: string, appGroupId: string, days: readonly string[]): Promise<Map<string, DayRollup>> {
    const now = this.clock.now().getTime();
    const found = new Map<string, DayRollup>();
    const missing: string[] = [];
    for (const day of days) {
      const hit = this.cache.get(`${orgId}/${appGroupId}/${day}`);
      if (hit && hit.until > now) {
        if (hit.body) found.set(day, hit.body);
      } else missing.push(day);
    }
    if (missing.length === 0) return found;
    const rows: Array<{ day: string; body: DayRollup }> = await this.db.knex('analytics.rollups').where({ orgId, appGroupId }).whereIn('day', missing).select('day', 'body');
    const read = new Map(rows.map((r) => [r.day, typeof r.body === 'string' ? (JSON.parse(r.body) as DayRollup) : r.body]));
    for (const day of missing) {
      const body = read.get(day);
      if (body) found.set(day, body);
      this.remember(`${orgId}/${appGroupId}/${day}`, body, now + (body ? CACHE_DAY_MS : CACHE_MISSING_MS));
    }
    return found;
  }

  private remember(key: string, body: DayRollup | undefined, until: number): void {
    this.cache.delete(key);
    this.cache.set(key, { body, until });
    if (this.cache.size > CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
  }
}
