import type { Knex } from 'knex';

/** What {@link auditActivity} aggregates: events with `occurredAt` in `[from, to]`, minus `excludePrefixes`. */
export interface AuditActivityWindow {
  from: Date;
  to: Date;
  /** Event-type prefixes left out of every figure (`payment.` for anyone but the Owner). */
  excludePrefixes?: readonly string[];
  /** Length of the top lists (event types, actors). */
  top: number;
}

/**
 * One organization's audit activity over a window. `daily` lists only UTC days with events
 * (`YYYY-MM-DD`, oldest first); `eventTypes` and `actors` are the `top` largest, by count then name;
 * `accountIds` every distinct actor of type `account` in the window.
 */
export interface AuditActivity {
  total: number;
  daily: Array<{ day: string; events: number }>;
  eventTypes: Array<{ eventType: string; count: number }>;
  /** How many distinct event types the window holds (the top list is cut at `top`). */
  distinctEventTypes: number;
  actors: Array<{ type: string; id: string; count: number }>;
  /** How many distinct actors (type and id) the window holds. */
  distinctActors: number;
  accountIds: string[];
}

/** The last moment's figures: counts by `occurredAt`, the chain head, the outbox backlog. */
export interface AuditPulse {
  /** Events since `todayStart` (UTC midnight) up to `now`. */
  eventsToday: number;
  /** Events in the 24 hours up to `now`. */
  eventsLast24h: number;
  /** Distinct `account` actors of today's events. */
  accountIdsToday: string[];
  /** The organization's chain head (`sealedAt` of its last sealing), or null before its first record. */
  head: { seq: number; chainHash: string; sealedAt: string } | null;
  /** Events appended and not yet sealed, counted up to `backlogCap`. */
  unsealed: number;
}

const escapeLike = (prefix: string) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;

/** `and event_type not like …` for each prefix, with its bindings. */
function excluding(prefixes: readonly string[] = []): { sql: string; bindings: string[] } {
  return { sql: prefixes.map(() => ' and event_type not like ?').join(''), bindings: prefixes.map(escapeLike) };
}

/**
 * Aggregates one organization's events in a window: three hashed aggregates over the
 * `(org_id, occurred_at)` range — per UTC day (an integer day key, formatted only for the ≤ 90
 * result rows), per event type, per actor — top lists cut in SQL, sent together (on a server they
 * run on separate connections at once). Measured against one `group by grouping sets` scan, which
 * PostgreSQL serves by sorting the whole window for one of the sets: this is faster
 * (`bench/audit-stats.ts`). The work is bounded by the window's rows; only grouped figures leave
 * the database.
 * @param knex - the kernel database.
 * @returns {@link AuditActivity}; throws only on database errors.
 * @see docs/api/audit.md "Stats"
 */
export async function auditActivity(knex: Knex, orgId: string, w: AuditActivityWindow): Promise<AuditActivity> {
  const ex = excluding(w.excludePrefixes);
  const where = `org_id = ? and occurred_at >= ? and occurred_at <= ?${ex.sql}`;
  const bindings = [orgId, w.from, w.to, ...ex.bindings];
  const [days, types, actors] = await Promise.all([
    knex.raw(`select (extract(epoch from occurred_at)::bigint / 86400)::int as d, count(*)::int as n from core.audit_events where ${where} group by 1 order by 1`, bindings),
    knex.raw(
      `select event_type as "eventType", count(*)::int as n, (count(*) over ())::int as groups
         from core.audit_events where ${where} group by 1 order by 2 desc, 1 limit ?`,
      [...bindings, w.top],
    ),
    knex.raw(
      `select t, id, n, rk::int as rk, groups from (
         select actor_type as t, actor_id as id, count(*)::int as n, row_number() over (order by count(*) desc, actor_type, actor_id) as rk,
                (count(*) over ())::int as groups
           from core.audit_events where ${where} group by 1, 2) a
        where rk <= ? or t = 'account'`,
      [...bindings, w.top],
    ),
  ]);
  const daily = (days.rows as Array<{ d: number; n: number }>).map((r) => ({ day: new Date(r.d * 86_400_000).toISOString().slice(0, 10), events: r.n }));
  const typeRows = types.rows as Array<{ eventType: string; n: number; groups: number }>;
  const actorRows = (actors.rows as Array<{ t: string; id: string; n: number; rk: number; groups: number }>).sort((a, b) => a.rk - b.rk);
  return {
    total: daily.reduce((sum, d) => sum + d.events, 0),
    daily,
    eventTypes: typeRows.map((r) => ({ eventType: r.eventType, count: r.n })),
    distinctEventTypes: typeRows[0]?.groups ?? 0,
    actors: actorRows.filter((r) => r.rk <= w.top).map((r) => ({ type: r.t, id: r.id, count: r.n })),
    distinctActors: actorRows[0]?.groups ?? 0,
    accountIds: actorRows.filter((r) => r.t === 'account').map((r) => r.id),
  };
}

/**
 * The cheap header figures of one organization: one scan of its last 24 hours of events (index
 * range on `(org_id, occurred_at)`), the head row, and the outbox backlog counted up to
 * `backlogCap` (the outbox is the short queue the sealer drains; it has no organization index, so
 * the count stops early rather than walk a long queue).
 * @param knex - the kernel database.
 * @param at - `now`, `todayStart` (UTC midnight of now), `excludePrefixes`, `backlogCap`.
 * @returns {@link AuditPulse}; throws only on database errors.
 * @see docs/api/audit.md "Quick stats"
 */
export async function auditPulse(
  knex: Knex, orgId: string, at: { now: Date; todayStart: Date; excludePrefixes?: readonly string[]; backlogCap: number },
): Promise<AuditPulse> {
  const ex = excluding(at.excludePrefixes);
  const since = new Date(at.now.getTime() - 86_400_000);
  const { rows } = await knex.raw(
    `select count(*)::int as "last24h", (count(*) filter (where occurred_at >= ?))::int as "today",
            coalesce(array_agg(distinct actor_id) filter (where actor_type = 'account' and occurred_at >= ?), '{}') as "accounts",
            (select count(*)::int from (select 1 from core.audit_outbox where org_id = ? limit ?) o) as "unsealed",
            (select json_build_object('seq', h.seq, 'chainHash', h.chain_hash, 'sealedAt', h.updated_at) from core.audit_heads h where h.org_id = ? and h.seq > 0) as "head"
       from core.audit_events where org_id = ? and occurred_at > ? and occurred_at <= ?${ex.sql}`,
    [at.todayStart, at.todayStart, orgId, at.backlogCap, orgId, orgId, since, at.now, ...ex.bindings],
  );
  const r = rows[0] as { last24h: number; today: number; accounts: string[] | string; unsealed: number; head: { seq: number | string; chainHash: string; sealedAt: string } | string | null };
  const head = typeof r.head === 'string' ? JSON.parse(r.head) : r.head;
  return {
    eventsToday: Number(r.today), eventsLast24h: Number(r.last24h), accountIdsToday: toArray(r.accounts), unsealed: Number(r.unsealed),
    head: head ? { seq: Number(head.seq), chainHash: head.chainHash, sealedAt: new Date(head.sealedAt).toISOString() } : null,
  };
}

/** A Postgres text array as the driver gives it (an array, or `{a,b}` text from some drivers). */
function toArray(v: string[] | string): string[] {
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}
