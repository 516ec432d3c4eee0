/**
 * Benchmark of SCIM on a PostgreSQL server, over 50,000 members of one organization (and as many in
 * another):
 * - `GET /Users?filter=userName eq "…"`: p50/p95/p99 of sequential requests through HTTP (each a
 *   different user), and the query plan, which must use the email index (no scan of the members).
 *   Target: p95 < 20 ms.
 * - `PATCH /Groups/{id}` adding 1,000 members in one request (one transaction through rbac's bulk
 *   assignment path, separation of duties checked for each), then removing them all: the time of
 *   each request through HTTP, over several rounds with different members. Target: < 1 s.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/scim.ts; bash .ci/pg-server.sh stop $PGTMP
 * Options: `--members N` (default 50000), `--requests N` (default 500), `--rounds N` (default 5),
 * `--group-size N` (default 1000).
 */
import 'reflect-metadata';
import { TestAerie } from '../test/helpers/harness.ts';
import { signInWithOrg } from '../test/helpers/orgs.ts';
import { compileFilter } from '../plugins/scim/filter/compile-filter.ts';
import { parseFilter } from '../plugins/scim/filter/parse-filter.ts';
import { userFilterSchema } from '../plugins/scim/user-schema.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MEMBERS = arg('members', 50_000);
const REQUESTS = arg('requests', 500);
const ROUNDS = arg('rounds', 5);
const GROUP_SIZE = arg('group-size', 1000);
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

if (!process.env.TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)")');
const aerie = await TestAerie.start({ overrides: { 'log.level': 'warn' } });
try {
  const org = await signInWithOrg(aerie, 'owner@bench.test', 'bench');
  // Another organization with as many members, so the filter must also select the organization.
  const other = await signInWithOrg(aerie, 'owner@other.test', 'other');
  for (const [o, domain] of [[org, 'bench.test'], [other, 'other.test']] as const) {
    await aerie.sql(`insert into accounts.accounts (id, email, display_name, created_at, updated_at)
      select gen_random_uuid(), 'user' || g || '@${domain}', 'User ' || g, now(), now() from generate_series(1, ?) g`, [MEMBERS]);
    await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
      select gen_random_uuid(), ?, a.id, 'Member', 'active', now(), now() from accounts.accounts a where a.email like '%@${domain}' and a.email like 'user%'`, [o.id]);
  }
  await aerie.sql('analyze');
  const token = (await aerie.request('POST', '/api/org/bench/settings/scim/tokens', { token: org.owner, body: { name: 'bench' } })).body.value as string;

  const { sql, bindings } = compileFilter(parseFilter('userName eq "user777@bench.test"'), userFilterSchema);
  const plan = await aerie.sql<{ 'QUERY PLAN': string }>(`explain select d.membership_id from orgs.member_directory d where d.org_id = ? and d.status <> 'revoked' and ${sql}`, [org.id, ...bindings]);
  const planText = plan.map((r) => r['QUERY PLAN']).join('\n');

  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 20; i++) {
    const n = 1 + ((i * 7919) % MEMBERS);
    const started = performance.now();
    const res = await aerie.request('GET', `/scim/v2/bench/Users?filter=${encodeURIComponent(`userName eq "USER${n}@bench.test"`)}`, { token });
    const ms = performance.now() - started;
    if (res.status !== 200 || res.body.totalResults !== 1) throw new Error(`unexpected answer ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    if (i >= 20) times.push(ms); // the first 20 warm up
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
  console.log(`scim: GET /Users?filter=userName eq "…" over ${MEMBERS} members (and ${MEMBERS} in another organization), ${REQUESTS} sequential requests through HTTP`);
  console.log(`p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, p99 ${pct(0.99)} ms   (target p95 < 20 ms)`);
  console.log(`uses the email index: ${/accounts_email_lower/.test(planText) ? 'yes' : 'NO'}; seq scans: ${(planText.match(/Seq Scan/g) ?? []).length}`);
  console.log(planText);

  // PATCH of a 1,000-member group: add GROUP_SIZE members in one request, then remove them all.
  const ids = (await aerie.sql<{ id: string }>('select id from orgs.memberships where org_id = ? and role = ? order by id limit ?', [org.id, 'Member', GROUP_SIZE * ROUNDS])).map((r) => r.id);
  const created = await aerie.request('POST', '/scim/v2/bench/Groups', { token, body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Bench' } });
  if (created.status !== 201) throw new Error(`POST /Groups: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
  const group = created.body.id as string;
  const adds: number[] = [];
  const removes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const members = ids.slice(round * GROUP_SIZE, (round + 1) * GROUP_SIZE).map((value) => ({ value }));
    let started = performance.now();
    const add = await aerie.request('PATCH', `/scim/v2/bench/Groups/${group}`, { token, body: { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: members }] } });
    adds.push(performance.now() - started);
    if (add.status !== 204) throw new Error(`PATCH add: ${add.status} ${JSON.stringify(add.body).slice(0, 200)}`);
    const [{ n }] = await aerie.sql<{ n: number }>('select count(*)::int as n from rbac.role_assignments where role_id = ?', [group]);
    if (n !== members.length) throw new Error(`expected ${members.length} assignments, found ${n}`);
    started = performance.now();
    const remove = await aerie.request('PATCH', `/scim/v2/bench/Groups/${group}`, { token, body: { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members' }] } });
    removes.push(performance.now() - started);
    if (remove.status !== 204) throw new Error(`PATCH remove: ${remove.status}`);
  }
  const ms = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`;
  };
  console.log(`\nscim: PATCH /Groups/{id} adding ${GROUP_SIZE} members in one request (${ROUNDS} rounds, different members each): ${ms(adds)}   (target < 1 s)`);
  console.log(`scim: PATCH /Groups/{id} removing those ${GROUP_SIZE} members (path "members"): ${ms(removes)}`);
  console.log(`rounds (add, ms): ${adds.map((t) => t.toFixed(0)).join(', ')}`);

  // Entra ID's membership check on a large Group: `id eq … and members[value eq …]`, members excluded.
  const big = ids.slice(0, GROUP_SIZE * ROUNDS);
  const filled = await aerie.request('PATCH', `/scim/v2/bench/Groups/${group}`, { token, body: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: big.map((value) => ({ value })) }] } });
  if (filled.status !== 204) throw new Error(`PATCH fill: ${filled.status}`);
  const checks: number[] = [];
  for (let i = 0; i < 120; i++) {
    const member = big[(i * 7919) % big.length]!;
    const filter = encodeURIComponent(`id eq "${group}" and members[value eq "${member}"]`);
    const started = performance.now();
    const res = await aerie.request('GET', `/scim/v2/bench/Groups?filter=${filter}&excludedAttributes=members`, { token });
    if (i >= 20) checks.push(performance.now() - started);
    if (res.status !== 200 || res.body.totalResults !== 1) throw new Error(`membership check: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  checks.sort((a, b) => a - b);
  console.log(`scim: GET /Groups?filter=id eq "…" and members[value eq "…"]&excludedAttributes=members on a ${big.length}-member Group, 100 requests: p50 ${checks[50]!.toFixed(1)} ms, p95 ${checks[95]!.toFixed(1)} ms`);
} finally {
  await aerie.close();
}
