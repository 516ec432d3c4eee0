/**
 * Benchmark of issue 7: permission checks per second for a member holding 200 scoped grants,
 * against a plain `Set` lookup of the same strings, in the same run. Target: ratio ≥ 0.3.
 *
 * Workload: 200 held grants over four resources, each constrained to one id
 * (`org.project.read:project=P17`, `org.meeting.read:meeting=M3`, …) plus the default member grant;
 * the queries are those 200 held strings and 200 strings nobody holds (other ids), interleaved, so
 * half the answers are "yes" and half "no".
 *
 * Measured in rounds of about 300 ms after a warm-up; A and B run in 7 interleaved pairs and the
 * printed ratio is the median of the pairs' ratios (robust to other load on the machine):
 * A. baseline — `Set.has(text)` over the 200 held texts;
 * B. the rbac check — `PermissionsService.setFor(member, version, grants).has(text)`: what a check
 *    costs after its one database read (the member's set is cached against the grants version);
 *    ratio B / A is the target figure;
 * C. for information, building the set from the 200 texts and checking once
 *    (`new PermissionSet(grants).has(text)`): paid only when a member's grants changed, since rbac
 *    hands the route check the same frozen array per grants version and the kernel keeps the set
 *    it built per array (core/authz/authz-service.ts);
 * D. for information, the whole check through embedded PostgreSQL (PGlite): `core.authz` `holds()` over rbac with
 *    its primary-key read of `rbac.member_access`, per second.
 *
 * Run: node --import tsx bench/permission-check.ts
 */
import 'reflect-metadata';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { knexSnakeCaseMappers } from 'objection';
import { KernelAuthz, PermissionSet } from '../core/authz/index.ts';
import type { Database, OrgContext, Principal } from '../core/index.ts';
import { PermissionsService } from '../plugins/rbac/permissions.service.ts';

const ROUND_MS = 300;
const ROUNDS = 7;
const RESOURCES = [['project', 'read', 'project', 'P'], ['meeting', 'read', 'meeting', 'M'], ['org_file', 'list', 'folder', 'F'], ['device_identity', 'update', 'device', 'D']] as const;

function grants(n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const [resource, action, key, prefix] = RESOURCES[i % RESOURCES.length];
    out.push(`org.${resource}.${action}:${key}=${prefix}${i}`);
  }
  return out;
}

const held = grants(200);
const misses = held.map((g) => g.replace(/=([A-Z])(\d+)$/, (_m, p: string, d: string) => `=${p}${Number(d) + 100_000}`));
const queries = held.flatMap((g, i) => [g, misses[i]]);

// One loop per contender, written out, so each call site stays monomorphic (a shared loop taking a
// callback would be optimised for whichever contender ran first and skew the ratio).
function loopSet(set: Set<string>, ms: number): { checks: number; elapsed: number; yes: number } {
  let checks = 0;
  let yes = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < queries.length; i++) if (set.has(queries[i])) yes++;
    checks += queries.length;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return { checks, elapsed, yes };
}

function loopRbac(service: PermissionsService, ms: number): { checks: number; elapsed: number; yes: number } {
  let checks = 0;
  let yes = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < queries.length; i++) if (service.setFor('member-1', 7, held).has(queries[i])) yes++;
    checks += queries.length;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return { checks, elapsed, yes };
}

function loopRebuild(ms: number): { checks: number; elapsed: number; yes: number } {
  let checks = 0;
  let yes = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < queries.length; i++) if (new PermissionSet(held).has(queries[i])) yes++;
    checks += queries.length;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return { checks, elapsed, yes };
}

const rate = (r: { checks: number; elapsed: number }) => (r.checks / r.elapsed) * 1000;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function measureDb(): Promise<number> {
  const pglite = new PGlite();
  const knex: Knex = knexFactory({ client: ClientPgLite as unknown as typeof Knex.Client, dialect: 'postgres', connection: () => ({ pglite }) as object, ...knexSnakeCaseMappers() });
  await knex.raw('create schema rbac');
  await knex.raw('create table rbac.member_access (membership_id uuid primary key, org_id uuid not null, membership_type text not null, grants jsonb not null, version integer not null, updated_at timestamptz not null)');
  const orgId = '00000000-0000-4000-8000-000000000001';
  const memberId = '00000000-0000-4000-8000-000000000002';
  await knex('rbac.member_access').insert({ membershipId: memberId, orgId, membershipType: 'Member', grants: JSON.stringify(held), version: 1, updatedAt: new Date() });
  const db = { knex, kind: 'pglite', transaction: (fn) => knex.transaction(fn), ping: async () => {}, close: () => knex.destroy() } as Database;
  const service = new PermissionsService(db, new KernelAuthz(() => undefined));
  // The check as a plugin makes it: core.authz over rbac's grants provider.
  const authz = new KernelAuthz(() => (p, o) => service.grantsOf(p, o));
  const principal: Principal = { type: 'account', id: 'a', accountId: 'a' };
  const org: OrgContext = { organization: { id: orgId, slug: 'acme', name: 'Acme', type: 'Standard' }, membership: { id: memberId, role: 'Member' } };
  for (let i = 0; i < 200; i++) await authz.holds(principal, org, queries[i % queries.length]);
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < 1500) await authz.holds(principal, org, queries[n++ % queries.length]);
  const perSecond = (n / (performance.now() - start)) * 1000;
  await knex.destroy();
  return perSecond;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);

const plain = new Set(held);
const service = new PermissionsService({} as Database, new KernelAuthz(() => undefined));
// Same answers from all three (half the queries are held).
const oneSet = loopSet(plain, 0);
const oneRbac = loopRbac(service, 0);
const oneRebuild = loopRebuild(0);
if (oneSet.yes !== held.length || oneRbac.yes !== held.length || oneRebuild.yes !== held.length) {
  throw new Error(`answers differ: set ${oneSet.yes}, rbac ${oneRbac.yes}, rebuild ${oneRebuild.yes} (want ${held.length})`);
}
loopSet(plain, ROUND_MS);
loopRbac(service, ROUND_MS);
// Paired rounds, alternating which goes first, so a busy machine slows both sides of each pair alike.
const setRates: number[] = [];
const rbacRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2 === 0) {
    setRates.push(rate(loopSet(plain, ROUND_MS)));
    rbacRates.push(rate(loopRbac(service, ROUND_MS)));
  } else {
    rbacRates.push(rate(loopRbac(service, ROUND_MS)));
    setRates.push(rate(loopSet(plain, ROUND_MS)));
  }
}
const ratios = setRates.map((x, i) => rbacRates[i] / x);
const a = Math.max(...setRates);
const b = Math.max(...rbacRates);
const ratio = median(ratios);
const c = rate(loopRebuild(ROUND_MS));
const d = await measureDb();

console.log(`permission checks: member with ${held.length} scoped grants, ${queries.length} queries (half held), node ${process.version}`);
console.log(`A  Set.has (baseline)                    ${fmt(a)} /s`);
console.log(`B  rbac check (cached set, after read)   ${fmt(b)} /s`);
console.log(`   ratio B/A, median of ${ROUNDS} paired rounds: ${ratio.toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(' ')}); target >= 0.30: ${ratio >= 0.3 ? 'OK' : 'BELOW TARGET'}`);
console.log(`C  build set + check (info, on change)   ${fmt(c)} /s   ratio C/A ${(c / a).toFixed(4)}`);
console.log(`D  full check incl. PGlite read (info)   ${fmt(d)} /s`);
