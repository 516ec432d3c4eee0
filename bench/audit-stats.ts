/**
 * Benchmark of the console figures (docs/api/audit.md "Stats"), side by side in one run, same rows:
 * one busy organization with `--events` events spread evenly over the last 90 days (8 event types
 * plus 40 rare ones, 200 account actors, API keys on every fifth event, `payment.*` on every
 * eighth) beside a second organization as large, in `core.audit_events` with its real indexes,
 * `analyze`d. Each figure set is computed for an Admin (`payment.*` left out, so no index-only scan):
 * a. `core.auditLog.activity` over 90 days — three hashed aggregates (per day with an integer day
 *    key, per type, per actor), top lists cut in SQL, sent together (on a server they run on three
 *    connections at once, on PGlite one after the other): what `GET /stats?days=90` runs;
 * b. the same figures by ONE `group by grouping sets ((day), (event_type), (actor_type, actor_id))`
 *    scan (the first design; PostgreSQL serves it with a MixedAggregate that sorts the whole window
 *    for one of the sets);
 * c. `activity` over 7 days (the default window);
 * d. `core.auditLog.pulse` — today, the last 24 hours, the chain head, the outbox backlog: what
 *    `GET /stats/quick` runs.
 * a and b must give the same figures (checked). Best of 3 interleaved rounds after a warm-up; prints
 * milliseconds, the ratio b ÷ a and the load average.
 *
 * Run (embedded PGlite): node --import tsx bench/audit-stats.ts [--events N]
 * On a server: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/audit-stats.ts --events 500000;
 * bash .ci/pg-server.sh stop "$PGTMP" (uses `TEST_DATABASE_URL`, loopback only).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../core/kernel.ts';
import { coreRefs } from '../core/core-refs.ts';
import type { AuditLog } from '../core/audit/audit-log.types.ts';
import { createTestDatabase } from '../test/helpers/pg-databases.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const EVENTS = arg('events', 200_000);
const ROUNDS = 3;
const DAY = 86_400_000;
const adminUrl = process.env.TEST_DATABASE_URL;
if (adminUrl) {
  const host = new URL(adminUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host) && !host.startsWith('/')) throw new Error(`loopback only, got ${host}`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'aerie-bench-'));
const db = adminUrl ? await createTestDatabase(adminUrl) : undefined;
const kernel = await Kernel.boot({ env: { AERIE_DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}), AERIE_PLUGINS: 'accounts,orgs,audit', AERIE_LOG_LEVEL: 'warn' }, cwd: dataDir, memoryDatabase: !db });
const knex = kernel.db.knex;
const log = kernel.container.resolve<AuditLog>(coreRefs.auditLog.id);
const deadline = setTimeout(() => { console.error('bench exceeded 5 minutes'); process.exit(2); }, 300_000);

/** One grouping-sets scan (b): per day (`YYYY-MM-DD`), per type and per actor, cut like `activity`. */
async function groupingSets(orgId: string, from: Date, to: Date) {
  const { rows } = await knex.raw(
    `with g as (
       select case when grouping(day) = 0 then 'day' when grouping(event_type) = 0 then 'type' else 'actor' end as k,
              day, event_type, actor_type, actor_id, count(*)::int as n
         from (select to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day, event_type, actor_type, actor_id
                 from core.audit_events where org_id = ? and occurred_at >= ? and occurred_at <= ? and event_type not like 'payment.%') w
        group by grouping sets ((day), (event_type), (actor_type, actor_id))
     ), r as (
       select g.*, row_number() over (partition by k order by n desc, event_type, actor_type, actor_id) as rk, count(*) over (partition by k)::int as groups from g
     )
     select * from r where k = 'day' or rk <= 10 or (k = 'actor' and actor_type = 'account')`,
    [orgId, from, to],
  );
  const of = (k: string) => (rows as Array<{ k: string; n: number; rk: string; groups: number; event_type: string; actor_type: string }>).filter((r) => r.k === k);
  return {
    total: of('day').reduce((s, r) => s + r.n, 0), days: of('day').length,
    types: of('type').filter((r) => Number(r.rk) <= 10).sort((a, b) => Number(a.rk) - Number(b.rk)).map((r) => `${r.event_type}:${r.n}`),
    distinctTypes: of('type')[0]?.groups ?? 0, accounts: of('actor').filter((r) => r.actor_type === 'account').length,
  };
}

try {
  const version = (await knex.raw('show server_version')).rows[0].server_version;
  const [busy, other] = [randomUUID(), randomUUID()];
  const now = new Date();
  console.log(`PostgreSQL ${version} (${db ? 'server' : 'embedded PGlite'}); ${EVENTS.toLocaleString('en-US')} events per organization over 90 days, 2 organizations; node ${process.version}`);
  const t0 = performance.now();
  for (const orgId of [busy, other]) {
    await knex.raw(
      `insert into core.audit_events (id, org_id, seq, event_type, occurred_at, actor_type, actor_id, business_data, payload_hash, prev_hash, chain_hash, sealed_at)
       select gen_random_uuid(), ?::uuid, g,
              case when g % 50 = 0 then 'app.rare.' || (g % 40)::text
                   else (array['org.role.created','app.order.placed','auth.login.succeeded','org.member.invited','payment.charge','app.login','org.file.share_viewed','reporting.run'])[1 + g % 8] end,
              ?::timestamptz - ((g::float8 / ?) * 90 * 86400) * interval '1 second',
              case when g % 5 = 0 then 'apiKey' else 'account' end,
              case when g % 5 = 0 then 'key-' || (g % 7)::text else gen_random_uuid()::text end,
              '{}'::jsonb, 'p', 'q', 'r', now()
         from generate_series(1, ?) g`,
      [orgId, now, EVENTS, EVENTS],
    );
  }
  // 200 account actors, not one per event: rewrite the ids onto a fixed set.
  await knex.raw(`update core.audit_events set actor_id = '00000000-0000-4000-8000-' || lpad((seq % 200)::text, 12, '0') where actor_type = 'account'`);
  await knex.raw('analyze core.audit_events');
  console.log(`fixture written in ${Math.round(performance.now() - t0)} ms`);

  const exclude = ['payment.'];
  const from90 = new Date(Date.parse(now.toISOString().slice(0, 10)) - 89 * DAY);
  const from7 = new Date(Date.parse(now.toISOString().slice(0, 10)) - 6 * DAY);
  const cases: Record<string, () => Promise<unknown>> = {
    'a. activity, 90 days (three hashed aggregates)': () => log.activity(busy, { from: from90, to: now, excludePrefixes: exclude, top: 10 }),
    'b. one grouping-sets scan, 90 days': () => groupingSets(busy, from90, now),
    'c. activity, 7 days': () => log.activity(busy, { from: from7, to: now, excludePrefixes: exclude, top: 10 }),
    'd. pulse (quick stats)': () => log.pulse(busy, { now, todayStart: new Date(Date.parse(now.toISOString().slice(0, 10))), excludePrefixes: exclude, backlogCap: 1001 }),
  };
  // Same figures both ways.
  const a = await log.activity(busy, { from: from90, to: now, excludePrefixes: exclude, top: 10 });
  const b = await groupingSets(busy, from90, now);
  const same = a.total === b.total && a.daily.length === b.days && a.distinctEventTypes === b.distinctTypes && a.accountIds.length === b.accounts
    && JSON.stringify(a.eventTypes.map((t) => `${t.eventType}:${t.count}`)) === JSON.stringify(b.types);
  if (!same) throw new Error(`a and b differ: ${JSON.stringify({ a: { ...a, accountIds: a.accountIds.length }, b })}`);
  console.log(`figures agree: ${a.total.toLocaleString('en-US')} events (Admin view), ${a.daily.length} days, ${a.distinctEventTypes} types, ${a.accountIds.length} account actors`);

  const best: Record<string, number> = {};
  for (const run of Object.values(cases)) await run(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const t = performance.now();
      await run();
      const ms = performance.now() - t;
      best[name] = Math.min(best[name] ?? Infinity, ms);
    }
  }
  for (const [name, ms] of Object.entries(best)) console.log(`${name.padEnd(48)} ${ms.toFixed(1).padStart(9)} ms`);
  const [ka, kb] = Object.keys(cases);
  console.log(`ratio b ÷ a (grouping sets ÷ activity): ${(best[kb] / best[ka]).toFixed(2)}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  clearTimeout(deadline);
  await kernel.close();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
