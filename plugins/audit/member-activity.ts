import type { Knex } from 'knex';
import { utcDay, type Clock } from '../../core/index.ts';

const PRESENCE = 'audit.member_presence';
const ACTIVITY = 'audit.member_activity';

/**
 * The heartbeat rule (docs/api/audit.md "Heartbeat"): the console beats every `intervalSeconds`
 * while a member is active; a beat credits the time since the member's previous counted beat in
 * the organization, at most `capSeconds`; a beat less than `floorSeconds` after it changes nothing
 * (the next beat credits that time). Credited time never exceeds the wall-clock time between a
 * member's beats, so no client can inflate it, whatever it sends.
 */
export const HEARTBEAT = { intervalSeconds: 30, capSeconds: 60, floorSeconds: 5 } as const;

/** What one beat did: seconds credited now (0 for a first or too-early beat) and the day's total for the member. */
export interface BeatResult {
  /** UTC day the beat counted on (`YYYY-MM-DD`). */
  day: string;
  creditedSeconds: number;
  /** The member's active seconds on `day` in this organization, this beat included. */
  activeSecondsToday: number;
  /** When the console should beat again (seconds). */
  nextBeatSeconds: number;
}

/** One member's active time over a window. */
export interface MemberActiveTime {
  accountId: string;
  activeSeconds: number;
}

/**
 * Members' active time per organization and UTC day (`audit.member_presence`,
 * `audit.member_activity`). Every method takes the organization id and filters by it.
 */
export class MemberActivity {
  constructor(private readonly knex: Knex, private readonly clock: Clock) {}

  /**
   * Records one heartbeat of `accountId` (an active member; the route checks) in `orgId` under
   * {@link HEARTBEAT}. The credited interval counts on the beat's UTC day. Concurrent beats of one
   * member are serialised on the presence row, so an interval is never counted twice.
   * @returns {@link BeatResult}; throws only on database errors.
   */
  async beat(orgId: string, accountId: string): Promise<BeatResult> {
    const now = this.clock.now();
    const day = utcDay(now);
    const key = { orgId, accountId };
    const result = (creditedMs: number, activeMs: number): BeatResult => ({
      day, creditedSeconds: Math.floor(creditedMs / 1000), activeSecondsToday: Math.floor(activeMs / 1000), nextBeatSeconds: HEARTBEAT.intervalSeconds,
    });
    // A rapid repeat is answered from one read, without a transaction or a write.
    const last = await this.knex(PRESENCE).where(key).first('lastBeatAt');
    if (last && now.getTime() - new Date(last.lastBeatAt).getTime() < HEARTBEAT.floorSeconds * 1000) return result(0, await this.todayMs(orgId, accountId, day));
    return this.knex.transaction(async (trx) => {
      await trx(PRESENCE).insert({ ...key, lastBeatAt: now }).onConflict(['orgId', 'accountId']).ignore();
      const locked = await trx(PRESENCE).where(key).forUpdate().first('lastBeatAt');
      const gapMs = now.getTime() - new Date(locked.lastBeatAt).getTime();
      // A first beat (the row was just written with `now`) and a clock behind the stored beat credit nothing.
      if (gapMs < HEARTBEAT.floorSeconds * 1000 && gapMs !== 0) return result(0, await this.todayMs(orgId, accountId, day, trx));
      const creditedMs = Math.min(Math.max(gapMs, 0), HEARTBEAT.capSeconds * 1000);
      if (gapMs > 0) await trx(PRESENCE).where(key).update({ lastBeatAt: now });
      const [row] = await trx(ACTIVITY).insert({ ...key, day, activeMs: creditedMs, updatedAt: now })
        .onConflict(['orgId', 'accountId', 'day']).merge({ activeMs: trx.raw('?? + ?', [`${ACTIVITY}.active_ms`, creditedMs]), updatedAt: now })
        .returning('activeMs');
      return result(creditedMs, Number(row.activeMs));
    });
  }

  /**
   * Active time per member on the UTC days `fromDay`..`toDay` (inclusive), largest first, of the
   * accounts `members` selects (a query with an `account_id` column), at most `limit`, plus the
   * total over all of them.
   */
  async activeTime(orgId: string, fromDay: string, toDay: string, members: Knex.QueryBuilder, limit: number): Promise<{ totalSeconds: number; members: MemberActiveTime[] }> {
    const { rows } = await this.knex.raw(
      `select a.account_id::text as "accountId", sum(a.active_ms)::bigint as ms, sum(sum(a.active_ms)) over ()::bigint as total
         from ${ACTIVITY} a where a.org_id = ? and a.day >= ? and a.day <= ? and a.account_id in (select m.account_id from (?) m)
        group by a.account_id having sum(a.active_ms) > 0 order by ms desc, a.account_id limit ?`,
      [orgId, fromDay, toDay, members, limit],
    );
    const list = rows as Array<{ accountId: string; ms: string | number; total: string | number }>;
    return { totalSeconds: list.length ? Math.floor(Number(list[0].total) / 1000) : 0, members: list.map((r) => ({ accountId: r.accountId, activeSeconds: Math.floor(Number(r.ms) / 1000) })) };
  }

  /**
   * How many of the accounts `members` selects were active from `fromDay` on: a heartbeat on one of
   * those days, or one of `actorIds` (accounts that acted on the audit chain in the window).
   * @returns `{ total, active }` — `total` is every account `members` selects.
   */
  async memberCounts(orgId: string, fromDay: string, members: Knex.QueryBuilder, actorIds: readonly string[]): Promise<{ total: number; active: number }> {
    const { rows } = await this.knex.raw(
      `select count(*)::int as total,
              (count(*) filter (where m.account_id::text = any(?::text[])
                 or exists (select 1 from ${ACTIVITY} a where a.org_id = ? and a.account_id = m.account_id and a.day >= ?)))::int as active
         from (select distinct account_id from (?) s) m`,
      [actorIds as string[], orgId, fromDay, members],
    );
    return { total: Number(rows[0].total), active: Number(rows[0].active) };
  }

  private async todayMs(orgId: string, accountId: string, day: string, trx?: Knex.Transaction): Promise<number> {
    const row = await (trx ?? this.knex)(ACTIVITY).where({ orgId, accountId, day }).first('activeMs');
    return Number(row?.activeMs ?? 0);
  }
}
