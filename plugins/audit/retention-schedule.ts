/** Days between an event leaving the query window and its purge from the hot store. @see docs/api/audit.md "Retention" */
export const GRACE_DAYS = 14;
/** Notices sent before a purge (fixed policy). */
export const NOTICE_COUNT = 2;
/** Days between notices. */
export const NOTICE_INTERVAL_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * The `GET /retention` body: `{ planKey, retentionDays, unlimited, windowStartUtc,
 * isContractOverride, graceDays, noticeCount, noticeCountPolicy, noticeIntervalDays,
 * firstNoticeAt, finalNoticeAt, purgeScheduledAt, purgeUnlocked }`.
 * @see docs/audit.md
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
}

/**
 * The retention schedule of the next purge cohort — the organization's oldest event: it leaves the
 * query window at `occurredAt + retentionDays` (first notice), the final notice follows every
 * `NOTICE_INTERVAL_DAYS`, and the purge of the hot copy is allowed `GRACE_DAYS` after the exit
 * (`purgeUnlocked` from then). The sealed chain and its exports are never changed by this.
 * Unlimited plans and empty chains schedule nothing (nulls, `purgeUnlocked` false).
 * @param planKey - the organization's plan.
 * @param retentionDays - days, or null for unlimited.
 * @param oldest - the oldest event's `occurredAt` (undefined when none).
 * @param now - the current time.
 * @see docs/audit.md
 */
export function retentionSchedule(planKey: string, retentionDays: number | null, oldest: Date | undefined, now: Date): RetentionResponse {
  const base = {
    planKey, retentionDays, unlimited: retentionDays === null,
    windowStartUtc: retentionDays === null ? null : new Date(now.getTime() - retentionDays * DAY_MS).toISOString(),
    isContractOverride: false, graceDays: GRACE_DAYS, noticeCount: NOTICE_COUNT, noticeCountPolicy: 'fixed' as const, noticeIntervalDays: NOTICE_INTERVAL_DAYS,
  };
  if (retentionDays === null || !oldest) return { ...base, firstNoticeAt: null, finalNoticeAt: null, purgeScheduledAt: null, purgeUnlocked: false };
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
