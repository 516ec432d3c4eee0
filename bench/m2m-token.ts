/**
 * Benchmark of machine-token issuance and machine-token-protected routes, side by side on this
 * machine, against a PostgreSQL server.
 *
 * Measured, in one run (autocannon, 127.0.0.1 only):
 * A. Aerie `POST /api/m2m/token` (API key → RS256 machine token);
 * B. raw RS256 signing ops/s: `crypto.sign('sha256', …)` on a pre-parsed RSA-2048 KeyObject over a
 *    signing input of the same size, on the same threads Aerie signs on: Aerie serves from one
 *    process whose event loop hands each signature to libuv's thread pool (`UV_THREADPOOL_SIZE`,
 *    default 4, the same here), so B keeps that pool busy with asynchronous `crypto.sign` calls
 *    (16 in flight). For reference, one thread signing synchronously is printed too;
 * C. oidc-provider's `client_credentials` token endpoint issuing RS256 JWT access tokens
 *    (resource indicators, `accessTokenFormat: 'jwt'`), RSA-2048 key, 300 s, one process;
 * D. a route on `/api/org/{slug}/…` under a machine token (`auth: 'machineToken'`, `org: true`,
 *    `scope`) against the same handler mounted without auth. Both do the same work: the protected
 *    route gets its organization from the kernel's org resolver, the open twin looks it up itself
 *    (same service call), so the ratio isolates token verification and the per-request revocation
 *    and key-status check.
 * Also shown, to read the numbers: `GET /healthz`, the kernel's HTTP floor (no database, no auth), and
 * the CPU time the serving process spends per request (Linux `/proc`), with the part of it spent on
 * its main thread, the event loop (the rest is libuv's pool, where the signatures are made, and V8's
 * helper threads). Two reference routes split
 * issuance's CPU (docs/api/keys.md, "Benchmarks"): E. `POST /api/bench/post`, the token route's
 * body, schema and headers answered with a constant body of a token answer's size (the kernel's POST
 * path, no signing); F. the same plus one RS256 signature of a same-size input, made with
 * asynchronous `crypto.sign` on libuv's thread pool as the token route signs (A minus F is the
 * endpoint's own work: key look-up, claims, JWS encoding). And the Aerie process's idle CPU (its timers: audit sealing, webhooks), measured before the
 * load: every target pays it per second, so a slow target pays more of it per request.
 * Targets, stated in CPU per token of the serving process, which the machine's core count (and a
 * load generator sharing those cores) does not distort:
 * 1. Aerie's CPU per issued token ≤ raw signing CPU per signature (B, one thread, synchronous,
 *    `process.cpuUsage`) + 1.5 × the CPU per request of `GET /healthz` (the HTTP floor) — all
 *    measured in this run; printed as `CPU per token / (raw signing + 1.5 × floor)`, target ≤ 1.00;
 * 2. issuance ≥ 1.5 × oidc-provider's client_credentials (C), requests per second in this run;
 * 3. D protected ≥ 0.8 × D open.
 * A / B (throughput against raw signing) is printed for reference only: on two cores shared with
 * the load generator no design reaches a fixed fraction of it (docs/api/keys.md, "Benchmarks").
 *
 * Aerie and oidc-provider each run as a separate child process (logs at `warn`), autocannon runs
 * here. Every target gets a warm-up, then the targets are measured in interleaved rounds (A, C, D,
 * D-open, HTTP floor, E, F, B; repeated), so that other load on the machine hits them alike; each
 * target's best round is compared (the median is printed too). Bounded: about 2 minutes with the
 * defaults.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/m2m-token.ts; bash .ci/pg-server.sh stop $PGTMP
 * (uses `TEST_DATABASE_URL` or `DATABASE_URL`: a role that may create databases). Options:
 * `--seconds N` per timed run (default 4), `--rounds N` (default 3), `--connections N` (default 32),
 * `--profile DIR` (a V8 CPU profile of the Aerie process, written when it stops).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import { createTestDatabase } from '../test/helpers/pg-databases.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SELF = fileURLToPath(import.meta.url);
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 4);
const ROUNDS = arg('rounds', 3);
const CONNECTIONS = arg('connections', 32);
/** `--profile DIR`: write a V8 CPU profile of the Aerie process into DIR (`--cpu-prof`). */
const PROFILE_DIR = process.argv.includes('--profile') ? resolve(process.argv[process.argv.indexOf('--profile') + 1]) : undefined;
const WARMUP_SECONDS = 2;
/** `getconf CLK_TCK` on Linux. */
const CLOCK_TICKS = 100;
/** A signing input the size of a machine token's header and claims. */
const SIGNING_INPUT = Buffer.from(`${'e'.repeat(110)}.${'p'.repeat(420)}`);
const TOKEN_TTL = 300;

// ---------------------------------------------------------------------------------------------
// Child mode: the oidc-provider peer.
// ---------------------------------------------------------------------------------------------
if (process.argv[2] === '--oidc-peer') {
  const port = Number(process.argv[3]);
  // Silence oidc-provider's development notices (runtime, in-memory adapter); errors still reach stderr.
  console.warn = () => {};
  console.info = () => {};
  // oidc-provider ships no type declarations.
  const { default: Provider } = (await import('oidc-provider' as string)) as { default: new (issuer: string, config: object) => any };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [{ client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
    jwks: { keys: [jwk as never] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'https://api.bench.test',
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'bench.read', accessTokenTTL: TOKEN_TTL, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
      },
    },
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider:', err));
  provider.listen(port, '127.0.0.1', () => process.send?.('ready'));
  await new Promise(() => {});
}

// ---------------------------------------------------------------------------------------------
// Main mode.
// ---------------------------------------------------------------------------------------------
interface Rate {
  rps: number;
  /** CPU time (user + system) the serving process spent per request, in microseconds (Linux). */
  cpuUs?: number;
  /** The part of `cpuUs` spent on the process's main thread (its event loop); the rest is its other threads (libuv's pool, V8's helpers). */
  loopCpuUs?: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

try {
  await main();
} finally {
  // Stop the servers (and let them finish) before their database is dropped.
  await Promise.all(children.map((c) => new Promise<void>((done) => {
    if (c.exitCode !== null || c.signalCode !== null) return done();
    c.once('exit', () => done());
    c.kill('SIGTERM');
  })));
  for (const fn of cleanups.reverse()) await fn();
}

async function main(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)") or DATABASE_URL to a PostgreSQL server');
  const started = Date.now();
  const db = await createTestDatabase(adminUrl);
  cleanups.push(db.drop);
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-bench-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const pluginsDir = writeBenchPlugin(dataDir);

  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 }).privateKey;

  const aeriePort = await freePort();
  const base = `http://127.0.0.1:${aeriePort}`;
  const aeriePid = await startChild(join(REPO, 'core/cli/aerie.mjs'), ['serve'], {
    PORT: String(aeriePort), AERIE_HOST: '127.0.0.1', AERIE_BASE_URL: base, DATABASE_URL: db.url, AERIE_DATA_DIR: dataDir,
    AERIE_MASTER_KEY: randomBytes(32).toString('base64'), AERIE_LOG_LEVEL: 'warn', AERIE_PLUGIN_PATHS: pluginsDir,
  }, `${base}/readyz`, PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []);
  const oidcPort = await freePort();
  const oidcPid = await startChild(SELF, ['--oidc-peer', String(oidcPort)], {}, undefined, ['--import', 'tsx']);

  const session = await signIn(base, dataDir, 'bench@bench.test');
  await call(base, 'POST', '/api/org/create', session, { name: 'Bench', slug: 'bench' }, 201);
  const key = await call(base, 'POST', '/api/org/bench/settings/keys/api-keys', session, { name: 'bench', scopes: ['org.bench.read'] }, 201);
  const tokenBody = JSON.stringify({ orgSlug: 'bench', apiKey: key.apiKey });
  const issued = await call(base, 'POST', '/api/m2m/token', undefined, JSON.parse(tokenBody), 200);
  const machineToken = issued.accessToken as string;
  await call(base, 'GET', '/api/org/bench/bench/ping', machineToken, undefined, 200);
  await call(base, 'GET', '/api/bench/bench/ping', undefined, undefined, 200);
  const probe = await call(base, 'POST', '/api/bench/post', undefined, JSON.parse(tokenBody), 200);
  // Within a few bytes (claims vary in length): a reference answer of another size would not be one.
  if (Math.abs(JSON.stringify(probe).length - JSON.stringify(issued).length) > 64) throw new Error(`the POST reference answers ${JSON.stringify(probe).length} bytes, the token route ${JSON.stringify(issued).length}`);
  await call(base, 'POST', '/api/bench/post-pool', undefined, JSON.parse(tokenBody), 200);
  const oidcBody = 'grant_type=client_credentials&scope=bench.read';
  const oidcHeaders = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('bench:bench-secret').toString('base64')}` };
  const peer = await (await fetch(`http://127.0.0.1:${oidcPort}/token`, { method: 'POST', headers: oidcHeaders, body: oidcBody })).json() as { access_token?: string };
  const peerHeader = JSON.parse(Buffer.from(String(peer.access_token).split('.')[0], 'base64url').toString()) as { alg: string };
  if (peerHeader.alg !== 'RS256') throw new Error(`oidc-provider issued ${JSON.stringify(peer)}`);

  const targets: Record<string, [LoadOptions, number]> = {
    token: [{ url: `${base}/api/m2m/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody }, aeriePid],
    oidc: [{ url: `http://127.0.0.1:${oidcPort}/token`, method: 'POST', headers: oidcHeaders, body: oidcBody }, oidcPid],
    protected: [{ url: `${base}/api/org/bench/bench/ping`, method: 'GET', headers: { authorization: `Bearer ${machineToken}` } }, aeriePid],
    open: [{ url: `${base}/api/bench/bench/ping`, method: 'GET' }, aeriePid],
    floor: [{ url: `${base}/healthz`, method: 'GET' }, aeriePid],
    post: [{ url: `${base}/api/bench/post`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody }, aeriePid],
    postPool: [{ url: `${base}/api/bench/post-pool`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody }, aeriePid],
  };
  const idleCpu = await idleCpuMsPerSecond(aeriePid, 3000);
  for (const [t] of Object.values(targets)) await load(t, WARMUP_SECONDS);
  const runs: Record<string, Rate[]> = { token: [], oidc: [], protected: [], open: [], floor: [], post: [], postPool: [] };
  const raw: number[] = [];
  const rawOneThread: number[] = [];
  const rawCpuUs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [t, pid]] of Object.entries(targets)) runs[name].push(await load(t, SECONDS, pid));
    raw.push(await rawPoolSigningRate(signingKey, 2000));
    const cpu0 = process.cpuUsage();
    const rate = rawSigningRate(signingKey, 1000);
    const cpu = process.cpuUsage(cpu0);
    rawOneThread.push(rate.perSecond);
    rawCpuUs.push((cpu.user + cpu.system) / rate.count);
  }

  const best = (rs: Rate[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (n: number) => n.toFixed(0).padStart(7);
  const row = (name: string, rs: Rate[]) => {
    const b = best(rs);
    const cpu = rs.every((r) => r.cpuUs !== undefined) ? `${median(rs.map((r) => r.cpuUs!)).toFixed(0).padStart(5)} µs` : '    -   ';
    const loop = rs.every((r) => r.loopCpuUs !== undefined) ? `${median(rs.map((r) => r.loopCpuUs!)).toFixed(0).padStart(5)} µs` : '    -   ';
    console.log(`${name.padEnd(54)} ${fmt(b.rps)} ${fmt(median(rs.map((r) => r.rps)))}  ${cpu} ${loop}   p50 ${String(b.p50).padStart(3)} ms  p99 ${String(b.p99).padStart(3)} ms  errors ${rs.reduce((n, r) => n + r.errors + r.non2xx, 0)}`);
  };
  console.log('');
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} hardware threads, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; Node ${process.version}; PostgreSQL server`);
  console.log(`load: autocannon (this process), ${CONNECTIONS} connections; ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} interleaved rounds of ${SECONDS} s`);
  console.log(`Aerie and oidc-provider: one process each (event loop + libuv pool of ${process.env.UV_THREADPOOL_SIZE ?? 4}), logs at warn; raw signing: the same pool size`);
  console.log('');
  console.log(`${''.padEnd(54)} ${'best'.padStart(7)} ${'median'.padStart(7)}  ${'CPU/req'.padStart(8)} ${'loop'.padStart(8)}   (per second; CPU of the serving process per request, median, and its event loop's part; latency of the best round)`);
  console.log(`${'raw RS256 crypto.sign, pre-parsed RSA-2048, pool'.padEnd(54)} ${fmt(Math.max(...raw))} ${fmt(median(raw))}`);
  console.log(`${'  (the same, one thread, synchronous; CPU per signature)'.padEnd(54)} ${fmt(Math.max(...rawOneThread))} ${fmt(median(rawOneThread))}  ${median(rawCpuUs).toFixed(0).padStart(5)} µs`);
  row('Aerie POST /api/m2m/token', runs.token);
  row('oidc-provider client_credentials, RS256 JWT access token', runs.oidc);
  row('Aerie GET /api/org/{slug}/bench/ping, machine token', runs.protected);
  row('Aerie same handler without auth', runs.open);
  row('Aerie GET /healthz (HTTP floor: no database, no auth)', runs.floor);
  row('  (reference: the token route\'s POST, constant answer)', runs.post);
  row('  (reference: the same + crypto.sign on libuv\'s pool)', runs.postPool);
  console.log(`${'  (reference: Aerie idle, CPU per second)'.padEnd(54)} ${idleCpu === undefined ? '-' : `${idleCpu.toFixed(1)} ms`}`);
  console.log('');
  const ratio = (label: string, a: Rate[], b: number[], target: number) => {
    const value = Math.max(...a.map((r) => r.rps)) / Math.max(...b);
    const med = median(a.map((r) => r.rps)) / median(b);
    console.log(`${label.padEnd(54)} ${value.toFixed(2).padStart(6)}× ${med.toFixed(2).padStart(6)}×   target ≥ ${target.toFixed(2)}×  ${value >= target ? 'met' : 'NOT MET'}`);
  };
  console.log(`${'ratios'.padEnd(54)} ${'best'.padStart(7)} ${'median'.padStart(7)}`);
  const cpuOf = (rs: Rate[]) => median(rs.map((r) => r.cpuUs ?? Number.NaN));
  const tokenCpu = cpuOf(runs.token);
  const budget = median(rawCpuUs) + 1.5 * cpuOf(runs.floor);
  const cpuRatio = tokenCpu / budget;
  console.log(`${'CPU per token / (raw signing + 1.5 × /healthz floor)'.padEnd(54)} ${cpuRatio.toFixed(2).padStart(6)}  ${''.padStart(7)}   ${tokenCpu.toFixed(0)} µs / (${median(rawCpuUs).toFixed(0)} + 1.5 × ${cpuOf(runs.floor).toFixed(0)} = ${budget.toFixed(0)} µs)  target ≤ 1.00  ${cpuRatio <= 1 ? 'met' : 'NOT MET'}`);
  const postCpu = cpuOf(runs.post);
  const idlePerToken = idleCpu === undefined ? Number.NaN : (idleCpu * 1000) / median(runs.token.map((r) => r.rps));
  console.log(`${'  (reference: CPU per token, split)'.padEnd(54)} signing ${median(rawCpuUs).toFixed(0)} + HTTP floor ${cpuOf(runs.floor).toFixed(0)} + POST path ${(postCpu - cpuOf(runs.floor)).toFixed(0)} + the rest ${(tokenCpu - postCpu - median(rawCpuUs)).toFixed(0)} µs (idle timers at the token rate: ${idlePerToken.toFixed(0)} µs)`);
  console.log(`${'  (reference: the same ratio for POST + pool signing)'.padEnd(54)} ${(cpuOf(runs.postPool) / budget).toFixed(2).padStart(6)}            ${cpuOf(runs.postPool).toFixed(0)} µs / ${budget.toFixed(0)} µs`);
  ratio('token issuance / oidc-provider', runs.token, runs.oidc.map((r) => r.rps), 1.5);
  console.log(`${'  (reference: POST + pool signing / oidc-provider)'.padEnd(54)} ${(Math.max(...runs.postPool.map((r) => r.rps)) / Math.max(...runs.oidc.map((r) => r.rps))).toFixed(2).padStart(6)}× ${(median(runs.postPool.map((r) => r.rps)) / median(runs.oidc.map((r) => r.rps))).toFixed(2).padStart(6)}×`);
  console.log(`${'  (reference: oidc-provider CPU per token / Aerie\'s)'.padEnd(54)} ${(cpuOf(runs.oidc) / tokenCpu).toFixed(2).padStart(6)}×`);
  const vsRaw = (xs: number[]) => Math.max(...runs.token.map((r) => r.rps)) / Math.max(...xs);
  console.log(`${'  (reference: issuance / raw signing, pool | one thread)'.padEnd(54)} ${vsRaw(raw).toFixed(2).padStart(6)}× ${vsRaw(rawOneThread).toFixed(2).padStart(6)}×   no target (see above)`);
  ratio('protected route / same route without auth', runs.protected, runs.open.map((r) => r.rps), 0.8);
  console.log(`\n(total ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

/** Signs on libuv's thread pool for `ms`, keeping 16 signatures in flight (as 32 connections would). */
async function rawPoolSigningRate(privateKey: KeyObject, ms: number): Promise<number> {
  const one = () => new Promise<void>((resolveSign, reject) => sign('sha256', SIGNING_INPUT, privateKey, (err) => (err ? reject(err) : resolveSign())));
  const t0 = performance.now();
  let n = 0;
  const lane = async () => {
    while (performance.now() - t0 < ms) {
      await one();
      n++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return n / ((performance.now() - t0) / 1000);
}

/** Signs synchronously in a loop for `ms` on this thread: signatures per second and how many were made. */
function rawSigningRate(privateKey: KeyObject, ms: number): { perSecond: number; count: number } {
  const input = SIGNING_INPUT;
  const run = (key: KeyObject, until: number) => {
    let n = 0;
    while (performance.now() < until) {
      sign('sha256', input, key);
      n++;
    }
    return n;
  };
  const t0 = performance.now();
  const n = run(privateKey, t0 + ms);
  return { perSecond: n / ((performance.now() - t0) / 1000), count: n };
}

interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

async function load(opts: LoadOptions, seconds: number, pid?: number): Promise<Rate> {
  const [cpuBefore, loopBefore] = pid ? [processCpuMs(pid), processCpuMs(pid, pid)] : [];
  const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: seconds });
  const [cpuAfter, loopAfter] = pid ? [processCpuMs(pid), processCpuMs(pid, pid)] : [];
  if (r.non2xx > 0 || r.errors > 0) console.error(`${opts.method} ${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const perRequest = (before?: number, after?: number) => (before !== undefined && after !== undefined && r.requests.total > 0 ? ((after - before) * 1000) / r.requests.total : undefined);
  return { rps: r.requests.average, cpuUs: perRequest(cpuBefore, cpuAfter), loopCpuUs: perRequest(loopBefore, loopAfter), p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/**
 * User + system CPU milliseconds of a process so far, or of one of its threads (`tid`; the main
 * thread's id is the process id), from Linux `/proc`; undefined elsewhere.
 */
function processCpuMs(pid: number, tid?: number): number | undefined {
  try {
    const fields = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU milliseconds per second the process spends with no request to serve, or undefined off Linux. */
async function idleCpuMsPerSecond(pid: number, ms: number): Promise<number | undefined> {
  const before = processCpuMs(pid);
  await new Promise((r) => setTimeout(r, ms));
  const after = processCpuMs(pid);
  return before === undefined || after === undefined ? undefined : ((after - before) * 1000) / ms;
}

/**
 * The bench plugin, written to a temporary folder and loaded through `AERIE_PLUGIN_PATHS`: one handler
 * mounted twice, under a machine token on `/api/org/{slug}/…` and without auth; and the two POST
 * references (the token route's body schema; a constant answer of a token answer's size, signed on
 * libuv's pool or not).
 */
function writeBenchPlugin(dataDir: string): string {
  const dir = join(dataDir, 'plugins', 'bench-probe');
  mkdirSync(dir, { recursive: true });
  // Outside the repository: say the TypeScript is ES modules, as the repository's package.json does.
  writeFileSync(join(dataDir, 'plugins', 'package.json'), '{ "type": "module" }');
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({
    id: 'bench-probe', version: '1.0.0', kernelApi: '^1.0.0', description: 'Benchmark probe routes', entry: './index.ts', requires: ['orgs', 'keys'],
  }));
  const core = JSON.stringify(join(REPO, 'core/index.ts'));
  const orgsApi = JSON.stringify(join(REPO, 'plugins/orgs/api.ts'));
  const tokenBodySchema = JSON.stringify(join(REPO, 'plugins/keys/schemas/m2m-token.body.ts'));
  writeFileSync(join(dir, 'index.ts'), `
import { generateKeyPairSync, sign } from 'node:crypto';
import { definePlugin, notFound, reply, route } from ${core};
import { orgsRefs } from ${orgsApi};
import { m2mTokenBody } from ${tokenBodySchema};
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
// A token answer's size: header and claims (${SIGNING_INPUT.length} bytes encoded) and a 342-character signature.
const SIGNING_INPUT = Buffer.from('e'.repeat(110) + '.' + 'p'.repeat(${SIGNING_INPUT.length - 111}));
const answer = (signature: string) => reply(200, { accessToken: SIGNING_INPUT.toString() + '.' + signature, tokenType: 'Bearer', expiresIn: 300, org: 'bench' }, { 'cache-control': 'no-store', pragma: 'no-cache' });
const signOnPool = () => new Promise<Buffer>((done, fail) => sign('sha256', SIGNING_INPUT, privateKey, (err, sig) => (err ? fail(err) : done(sig))));
export default definePlugin({
  id: 'bench-probe',
  deps: { organizations: orgsRefs.organizations },
  init({ organizations }, ctx) {
    const ping = (org: { id: string; slug: string }, principalId: string | null) => ({ org: org.slug, orgId: org.id, principal: principalId });
    ctx.routes(
      route({ method: 'GET', path: '/api/org/{slug}/bench/ping', auth: 'machineToken', org: true, scope: 'org.bench.read',
        handler: ({ org, principal }) => ping(org!.org, principal!.id) }),
      route({ method: 'POST', path: '/api/bench/post', auth: 'public', body: m2mTokenBody, handler: async () => answer('s'.repeat(342)) }),
      route({ method: 'POST', path: '/api/bench/post-pool', auth: 'public', body: m2mTokenBody,
        handler: async () => answer((await signOnPool()).toString('base64url')) }),
      route({ method: 'GET', path: '/api/bench/{slug}/ping', auth: 'public',
        handler: async ({ params }) => {
          const org = await organizations.findBySlug(String(params.slug));
          if (!org) throw notFound();
          return ping(org, null);
        } }),
    );
  },
});
`);
  return join(dataDir, 'plugins');
}

async function startChild(script: string, args: string[], env: Record<string, string>, readyUrl?: string, execArgv: string[] = []): Promise<number> {
  const child = fork(script, args, { env: { ...process.env, ...env }, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`))));
  if (!readyUrl) {
    await Promise.race([new Promise<void>((r) => child.once('message', () => r())), exited]);
    return child.pid!;
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await Promise.race([fetch(readyUrl).then((r) => r.ok, () => false), exited]);
    if (ok) return child.pid!;
    if (Date.now() > deadline) throw new Error(`${readyUrl} not ready after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function call(base: string, method: string, path: string, token: string | undefined, body: unknown, expected: number): Promise<any> {
  const res = await fetch(base + path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function signIn(base: string, dataDir: string, email: string): Promise<string> {
  const { latestCode } = await import('../test/helpers/mail.ts');
  await call(base, 'POST', '/api/v1/users/registration/email', undefined, { email }, 202);
  const verified = await call(base, 'POST', '/api/v1/users/verification/email', undefined, { email, code: latestCode(dataDir, email) }, 200);
  return verified.sessionToken as string;
}


function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
  });
}
