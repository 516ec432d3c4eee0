import { DAY_MS } from '../../core/index.ts';

/** Days between an event leaving the query window and its purge from the hot store. @see docs/api/audit.md "Retention" */
export const GRACE_DAYS = 14;
/** Notices sent before a purge (fixed policy). */
export const NOTICE_COUNT = 2;
/** Days between notices. */
export const NOTICE_INTERVAL_DAYS = 7;

/**
 * The `GET /retention` body: `{ planKey, retentionDays, unlimited, windowStartUtc,
 * isContractOverride, graceDays, noticeCount, noticeCountPolicy, noticeIntervalDays,
 * firstNoticeAt, finalNoticeAt, purgeScheduledAt, purgeUnlocked, purgeHorizon }`;
 * `purgeHorizon` is `{ throughSeq, day, purgedRows, purgedAt }` or null (nothing purged yet).
 * @see docs/audit.md "Retention", docs/api/audit.md "Retention"
 */
export interface RetentionResponse {
  planKey: string;
  retentionDays: number | null;
  unlimited: boolean;
  windowStartUtc: string | null;
  isContractOverride: boolean;
  graceDays: number;
  noticeCount: number;
  noticeCountPolicy: 'fixed';
  noticeIntervalDays: number;
  firstNoticeAt: string | null;
  finalNoticeAt: string | null;
  purgeScheduledAt: string | null;
  purgeUnlocked: boolean;
  purgeHorizon: { throughSeq: number; day: string; purgedRows: number; purgedAt: string } | null;
}

/**
 * A purge cohort whose first notice was sent (`audit.retention_cohorts`): the events that occurred
 * up to `throughOccurredAt`, first notice sent at `firstNoticeAt`, final notice at `finalNoticeAt`
 * (null until sent), purge allowed from `purgeAt`.
 */
export interface OpenCohort {
  throughOccurredAt: Date;
  firstNoticeAt: Date;
  finalNoticeAt: Date | null;
  purgeAt: Date;
}

/**
 * When a cohort may be purged: `purgeAt` ({@link GRACE_DAYS} after its first notice), and never
 * sooner than `GRACE_DAYS − NOTICE_INTERVAL_DAYS` after its final notice (a final notice sent late
 * still gives the Owners that long). Null while the final notice is not sent.
 * @param cohort - the open cohort.
 */
export function cohortPurgeAt(cohort: OpenCohort): Date | null {
  if (!cohort.finalNoticeAt) return null;
  return new Date(Math.max(cohort.purgeAt.getTime(), cohort.finalNoticeAt.getTime() + (GRACE_DAYS - NOTICE_INTERVAL_DAYS) * DAY_MS));
}

/**
 * The retention schedule of the next purge cohort — the organization's oldest event: it leaves the
 * query window at `occurredAt + retentionDays` (first notice), the final notice follows every
 * `NOTICE_INTERVAL_DAYS`, and the purge of the hot copy is allowed `GRACE_DAYS` after the exit
 * (`purgeUnlocked` from then). The sealed chain and its exports are never changed by this.
 * Unlimited plans and empty chains schedule nothing (nulls, `purgeUnlocked` false).
 * Once the retention job sent a cohort's first notice, the times are that cohort's: the notices
 * as sent (or due), and its purge time ({@link cohortPurgeAt}).
 * @param planKey - the organization's plan.
 * @param retentionDays - days, or null for unlimited.
 * @param oldest - the oldest event's `occurredAt` (undefined when none).
 * @param now - the current time.
 * @param state - the open cohort and the purge horizon, when there are.
 * @see docs/audit.md
 */
export function retentionSchedule(
  planKey: string, retentionDays: number | null, oldest: Date | undefined, now: Date,
  state: { cohort?: OpenCohort; horizon?: { throughSeq: number; day: string; purgedRows: number; updatedAt: Date } } = {},
): RetentionResponse {
  const h = state.horizon;
  const purgeHorizon = h ? { throughSeq: h.throughSeq, day: h.day, purgedRows: h.purgedRows, purgedAt: h.updatedAt.toISOString() } : null;
  const base = {
    purgeHorizon,
    planKey, retentionDays, unlimited: retentionDays === null,
    windowStartUtc: retentionDays === null ? null : new Date(now.getTime() - retentionDays * DAY_MS).toISOString(),
    isContractOverride: false, graceDays: GRACE_DAYS, noticeCount: NOTICE_COUNT, noticeCountPolicy: 'fixed' as const, noticeIntervalDays: NOTICE_INTERVAL_DAYS,
  };
  if (retentionDays === null || !oldest) return { ...base, firstNoticeAt: null, finalNoticeAt: null, purgeScheduledAt: null, purgeUnlocked: false };
  const c = state.cohort;
  if (c) {
    const final = c.finalNoticeAt ?? new Date(c.firstNoticeAt.getTime() + (NOTICE_COUNT - 1) * NOTICE_INTERVAL_DAYS * DAY_MS);
    const purge = cohortPurgeAt({ ...c, finalNoticeAt: final })!;
    return {
      ...base, firstNoticeAt: c.firstNoticeAt.toISOString(), finalNoticeAt: final.toISOString(), purgeScheduledAt: purge.toISOString(),
      purgeUnlocked: c.finalNoticeAt !== null && now.getTime() >= purge.getTime(),
    };
  }
  const exit = oldest.getTime() + retentionDays * DAY_MS;
  const purge = exit + GRACE_DAYS * DAY_MS;
  return {
    ...base,
    firstNoticeAt: new Date(exit).toISOString(),
    finalNoticeAt: new Date(exit + (NOTICE_COUNT - 1) * NOTICE_INTERVAL_DAYS * DAY_MS).toISOString(),
    purgeScheduledAt: new Date(purge).toISOString(),
    purgeUnlocked: now.getTime() >= purge,
  };
}
