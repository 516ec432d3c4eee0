/**
 * Benchmark of the end-user import and list on a PostgreSQL server, side by side in one run:
 * a. Aerie end to end: `--users` end users (default 100,000) through HTTP
 *    `POST /api/public/v1/end-users/import` (`X-Api-Key`, 500-row requests, `sendInvites: false`,
 *    one request at a time): validation, the multi-row `INSERT … ON CONFLICT DO NOTHING RETURNING`,
 *    the access rows, the audit `appendMany` (the background sealer runs meanwhile), the answer;
 * b. baseline: a raw multi-row `INSERT` of the same rows (same 500-row statements, same columns,
 *    one statement per transaction, through `pg`) into the same table, for another organization.
 *    a and b alternate request by request, so both see the table at the same size.
 *    Target: a ≥ 0.5 × b rows/s;
 * c. after `VACUUM ANALYZE`, `GET /api/org/{slug}/endusers?search=…` at `--users` end users of the organization (the table
 *    holds twice that, the baseline's rows in another organization): `--lists` requests (default
 *    300) one at a time with a session, searching fragments of addresses and names that match none
 *    to about 11,000 end users; p50/p95/p99. Target: p95 < 50 ms. Also printed for reference: the
 *    list without search, and a search matching every end user of the organization (its `total`
 *    counts them all).
 * Aerie runs in this process on the server's database (logs at `warn`), with the default plugins.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/enduser-import.ts [--users N] [--lists N];
 * bash .ci/pg-server.sh stop $PGTMP (uses `TEST_DATABASE_URL` or `DATABASE_URL`, loopback only).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Kernel } from '../core/kernel.ts';
import { createTestDatabase } from '../test/helpers/pg-databases.ts';
import { latestCode } from '../test/helpers/mail.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const USERS = arg('users', 100_000);
const LISTS = arg('lists', 300);
const BATCH = 500;
const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)")');
const host = new URL(adminUrl).hostname;
if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host) && !host.startsWith('/')) throw new Error(`loopback only, got ${host}`);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const db = await createTestDatabase(adminUrl);
const dataDir = mkdtempSync(join(tmpdir(), 'aerie-bench-'));
const kernel = await Kernel.boot({ env: { AERIE_DATA_DIR: dataDir, DATABASE_URL: db.url, AERIE_LOG_LEVEL: 'warn' }, cwd: dataDir });
const { url } = await kernel.listen(0, '127.0.0.1');
const raw = new pg.Client({ connectionString: db.url });
await raw.connect();

async function call(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<any> {
  const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

try {
  const version = (await raw.query('show server_version')).rows[0].server_version;
  const sync = (await raw.query('show synchronous_commit')).rows[0].synchronous_commit;
  console.log(`PostgreSQL ${version}, synchronous_commit=${sync}; ${fmt(USERS)} end users in ${BATCH}-row requests; node ${process.version}`);

  // Set-up through the public routes: an owner, an organization, an app group, an API key.
  const email = 'owner@bench.test';
  await call('POST', '/api/v1/users/registration/email', { email }, {});
  const { sessionToken } = await call('POST', '/api/v1/users/verification/email', { email, code: latestCode(dataDir, email) }, {});
  const session = { authorization: `Bearer ${sessionToken}` };
  const org = await call('POST', '/api/org/create', { name: 'Bench', slug: 'bench', type: 'Standard' }, session);
  const group = await call('POST', '/api/org/bench/app-groups', { name: 'Bench app' }, session);
  const { apiKey } = await call('POST', '/api/org/bench/settings/keys/api-keys', { name: 'bench' }, session);
  const rawOrgId = randomUUID();

  const rowsOf = (b: number) => Array.from({ length: BATCH }, (_, j) => {
    const n = b * BATCH + j;
    return { email: `user${n}.${n % 97}@example${n % 13}.test`, displayName: `User ${n} ${['Ann', 'Bob', 'Chen', 'Dana', 'Émile'][n % 5]}` };
  });
  const COLUMNS = ['id', 'org_id', 'badge', 'email', 'email_normalized', 'display_name', 'status', 'source', 'created_at', 'updated_at'];
  const rawInsert = async (users: Array<{ email: string; displayName: string }>) => {
    const now = new Date();
    const values: unknown[] = [];
    const tuples = users.map((u, i) => {
      values.push(randomUUID(), rawOrgId, `eu_${randomBytes(16).toString('base64url')}`, u.email, u.email.normalize('NFC').toLowerCase(), u.displayName, 'Pending', 'raw', now, now);
      return `(${COLUMNS.map((_, c) => `$${i * COLUMNS.length + c + 1}`).join(',')})`;
    });
    await raw.query(`insert into endusers.end_users (${COLUMNS.join(',')}) values ${tuples.join(',')} on conflict (org_id, email_normalized) do nothing returning id`, values);
  };

  let aerieMs = 0;
  let rawMs = 0;
  let created = 0;
  for (let b = 0; b < USERS / BATCH; b++) {
    const users = rowsOf(b);
    let t = performance.now();
    const { results } = await call('POST', '/api/public/v1/end-users/import', { appGroupId: group.id, source: 'bench', sendInvites: false, users }, { 'x-api-key': apiKey });
    aerieMs += performance.now() - t;
    created += results.filter((r: { result: string }) => r.result === 'created').length;
    t = performance.now();
    await rawInsert(users);
    rawMs += performance.now() - t;
  }
  if (created !== USERS) throw new Error(`created ${created} of ${USERS}`);
  const aRate = (USERS / aerieMs) * 1000;
  const bRate = (USERS / rawMs) * 1000;
  console.log(`a. Aerie HTTP import:     ${fmt(aRate)} rows/s (${fmt(aerieMs)} ms, ${fmt(aerieMs / (USERS / BATCH))} ms per request)`);
  console.log(`b. raw multi-row INSERT:  ${fmt(bRate)} rows/s (${fmt(rawMs)} ms, ${fmt(rawMs / (USERS / BATCH))} ms per statement)`);
  console.log(`   a / b = ${(aRate / bRate).toFixed(2)} (target ≥ 0.50)`);

  await raw.query('vacuum analyze endusers.end_users'); // the steady state autovacuum keeps (visibility map for index-only counts)
  const list = async (query: string) => {
    const t = performance.now();
    const page = await call('GET', `/api/org/bench/endusers?${query}`, undefined, session);
    return { ms: performance.now() - t, total: page.total as number };
  };
  for (let i = 0; i < 20; i++) await list(`search=user${i * 7}`); // warm-up
  const fragments = (i: number) => {
    const n = (i * 7919) % USERS;
    return [`user${n}.`, `user${Math.floor(n / 10)}`, `${n} ${['ann', 'bob', 'chen', 'dana', 'émile'][n % 5]}`, `user${Math.floor(n / 100)}`][i % 4];
  };
  const times: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < LISTS; i++) {
    const r = await list(`search=${encodeURIComponent(fragments(i))}&pageSize=20`);
    times.push(r.ms);
    totals.push(r.total);
  }
  times.sort((x, y) => x - y);
  totals.sort((x, y) => x - y);
  console.log(`c. list with search at ${fmt(USERS)} end users: p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (target p95 < 50 ms); matches per search ${totals[0]}–${totals.at(-1)}`);
  const plain: number[] = [];
  for (let i = 0; i < 50; i++) plain.push((await list(`page=${1 + i}&pageSize=20`)).ms);
  plain.sort((x, y) => x - y);
  const everyone = await list('search=example');
  console.log(`   reference: list without search p95 ${pct(plain, 95).toFixed(1)} ms; a search matching all ${fmt(everyone.total)} end users ${everyone.ms.toFixed(1)} ms`);
  console.log(`   organization ${org.id}`);
} finally {
  await raw.end();
  await kernel.close();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
