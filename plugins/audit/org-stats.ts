import { DAY_MS, dayStartMs, isUuid, utcDay, type AuditLog, type Clock } from '../../core/index.ts';
import type { AccountsService } from '../accounts/api.ts';
import type { EntitlementsService, MembershipsService } from '../orgs/api.ts';
import type { OrgReader } from './console-access.ts';
import type { MemberActivity } from './member-activity.ts';


/** Limits of the console figures (docs/api/audit.md "Stats"). */
export const STATS_LIMITS = { defaultDays: 7, maxDays: 90, top: 10, activeTimeTop: 20, backlogCap: 1000 } as const;

/** A member as the figures name it. */
export interface NamedMember {
  accountId: string;
  email: string;
  displayName: string | null;
}

/** What {@link OrgStats} needs. */
export interface OrgStatsDeps {
  auditLog: AuditLog;
  clock: Clock;
  entitlements: EntitlementsService;
  memberships: MembershipsService;
  accounts: AccountsService;
  activity: MemberActivity;
}

/**
 * The dashboard figures of `GET /stats` and `GET /stats/quick`: audit counts from the hot store
 * (`core.auditLog.activity` / `pulse`, aggregated in SQL) and members' active time from the
 * heartbeat table. Every figure is of one organization; `payment.*` counts for the Owner only.
 * @see docs/api/audit.md "Stats"
 */
export class OrgStats {
  constructor(private readonly deps: OrgStatsDeps) {}

  /**
   * Figures over the last `requestedDays` UTC days (today included), clamped to the plan's
   * retention (Free 1, Pro 7, …; unlimited → 90) so no figure reaches past what `/query` shows.
   * @param requestedDays - 1–90 (the route's schema checks).
   */
  async stats(reader: OrgReader, requestedDays: number) {
    const { auditLog, clock, entitlements } = this.deps;
    const orgId = reader.org.organization.id;
    const now = clock.now();
    const retentionDays = await entitlements.retentionDays(orgId);
    const days = Math.max(1, Math.min(requestedDays, retentionDays ?? STATS_LIMITS.maxDays));
    const today = utcDay(now);
    const from = new Date(dayStartMs(today) - (days - 1) * DAY_MS);
    const fromDay = utcDay(from);
    const a = await auditLog.activity(orgId, { from, to: now, excludePrefixes: reader.excludePrefixes, top: STATS_LIMITS.top });
    const counts = await this.deps.activity.memberCounts(orgId, fromDay, this.members(orgId), a.accountIds);
    const time = await this.deps.activity.activeTime(orgId, fromDay, today, this.members(orgId), STATS_LIMITS.activeTimeTop);
    const names = await this.memberNames(orgId, [...a.actors.filter((x) => x.type === 'account').map((x) => x.id), ...time.members.map((m) => m.accountId)]);
    const perDay = new Map(a.daily.map((d) => [d.day, d.events]));
    return {
      window: { from: from.toISOString(), to: now.toISOString(), days, requestedDays, retentionDays, clamped: days < requestedDays },
      paymentEventsIncluded: reader.owner,
      totals: { events: a.total, eventTypes: a.distinctEventTypes, actors: a.distinctActors },
      daily: Array.from({ length: days }, (_, i) => {
        const date = utcDay(from.getTime() + i * DAY_MS);
        return { date, events: perDay.get(date) ?? 0 };
      }),
      topEventTypes: a.eventTypes,
      topActors: a.actors.map((x) => ({ type: x.type, id: x.id, count: x.count, member: (x.type === 'account' && names.get(x.id)) || null })),
      members: {
        total: counts.total,
        active: counts.active,
        activeSecondsTotal: time.totalSeconds,
        activeTime: time.members.flatMap((m) => {
          const named = names.get(m.accountId);
          return named ? [{ ...named, activeSeconds: m.activeSeconds }] : [];
        }),
      },
    };
  }

  /** Header figures: today's and the last 24 hours' events, the chain head, the sealer backlog, members active today. */
  async quick(reader: OrgReader) {
    const { auditLog, clock } = this.deps;
    const orgId = reader.org.organization.id;
    const now = clock.now();
    const today = utcDay(now);
    const p = await auditLog.pulse(orgId, { now, todayStart: new Date(dayStartMs(today)), excludePrefixes: reader.excludePrefixes, backlogCap: STATS_LIMITS.backlogCap + 1 });
    const counts = await this.deps.activity.memberCounts(orgId, today, this.members(orgId), p.accountIdsToday);
    return {
      at: now.toISOString(),
      today,
      paymentEventsIncluded: reader.owner,
      eventsToday: p.eventsToday,
      eventsLast24h: p.eventsLast24h,
      membersTotal: counts.total,
      membersActiveToday: counts.active,
      chainHead: p.head,
      unsealedEvents: Math.min(p.unsealed, STATS_LIMITS.backlogCap),
      unsealedCapped: p.unsealed > STATS_LIMITS.backlogCap,
    };
  }

  private members(orgId: string) {
    return this.deps.memberships.activeAccountsQuery(orgId);
  }

  /** Email and display name of those of `ids` who are active members of `orgId` (others are left out). */
  private async memberNames(orgId: string, ids: string[]): Promise<Map<string, NamedMember>> {
    // Account actor ids are text on the chain: only UUIDs can be accounts. At most 2 × top + activeTimeTop look-ups.
    const unique = [...new Set(ids)].filter((id) => isUuid(id));
    const named = await Promise.all(unique.map(async (accountId): Promise<NamedMember | undefined> => {
      const membership = await this.deps.memberships.findByAccount(orgId, accountId);
      const account = membership?.status === 'active' ? await this.deps.accounts.findById(accountId) : undefined;
      return account ? { accountId, email: account.email, displayName: account.displayName } : undefined;
    }));
    return new Map(named.flatMap((m) => (m ? [[m.accountId, m] as const] : [])));
  }
}
