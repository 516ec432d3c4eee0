/**
 * Benchmark of the OpenID provider per organization, on a PostgreSQL server.
 *
 * Measured side by side in one run, in interleaved rounds (so other load on the machine hits both
 * alike), with the same keys, the same database adapter and the same organization:
 * A. Aerie: the organization's provider mounted in the kernel (`/api/public/orgs/{slug}/oauth/token`:
 *    kernel middleware, the organization looked up, the provider from the LRU cache, the
 *    issuer-host rewrite);
 * B. standalone: the same provider configuration (`buildProvider`, same adapter on the same tables)
 *    served by `http.createServer(provider.callback())` on its own port, no kernel in front.
 * Two grants: refresh_token (rotating: each request spends one refresh token and gets the next;
 * `--concurrency` chains in parallel) and authorization_code (codes made beforehand through Aerie's
 * authorization endpoint with a signed-in session, exchanged with PKCE).
 * Target: A ≥ 0.8 × B for both.
 *
 * Then memory: `--orgs` organizations (default 1,000) each get their provider built (a discovery
 * request each) in a separate `aerie serve` process on the same database, with the default cache
 * bound (`oidc.providerCacheSize` 500); that process's resident memory (/proc) after one provider
 * and after all. The process is the compiled build, as production runs it (`npm run build`, then
 * `node dist/core/cli/main.js serve`: no tsx). Target: stays under 300 MiB.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/oidc.ts; bash .ci/pg-server.sh stop $PGTMP
 * Options: `--seconds N` per refresh round (default 3), `--codes N` per code round (default 400),
 * `--rounds N` (default 3), `--concurrency N` (default 8), `--orgs N` (default 1000).
 */
import 'reflect-metadata';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { coreRefs, type Clock, type CryptoService, type Database } from '../core/index.ts';
import { appsRefs } from '../plugins/apps/api.ts';
import { endUsersRefs } from '../plugins/endusers/api.ts';
import { keysRefs } from '../plugins/keys/api.ts';
import { orgsRefs } from '../plugins/orgs/api.ts';
import { buildProvider } from '../plugins/oidc/provider-factory.ts';
import { DEFAULT_PROVIDER_CACHE_SIZE } from '../plugins/oidc/providers.ts';
import { REPO_ROOT } from '../core/kernel.ts';
import { TestAerie } from '../test/helpers/harness.ts';
import { freePort } from '../test/helpers/child-process.ts';
import { authorizationRequest, browserSignIn, CookieJar, REDIRECT_URI, relyingParty, signInWorld } from '../test/plugins/oidc/helpers.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 3);
const CODES = arg('codes', 400);
const ROUNDS = arg('rounds', 3);
const CONCURRENCY = arg('concurrency', 8);
const ORGS = arg('orgs', 1000);

if (!process.env.TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)")');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const aerie = await TestAerie.start({ exactBaseUrl: true, overrides: { 'log.level': 'warn' } });
try {
  const world = await signInWorld(aerie, 'bench');
  const c = aerie.kernel.container;
  const deps = {
    db: c.resolve<Database>(coreRefs.db.id), clock: c.resolve<Clock>(coreRefs.clock.id), crypto: c.resolve<CryptoService>(coreRefs.crypto.id),
    signingKeys: c.resolve(keysRefs.signingKeys.id), applications: c.resolve(appsRefs.applications.id), signIn: c.resolve(endUsersRefs.signIn.id),
    loginUrl: aerie.kernel.config.loginUrl,
  } as Parameters<typeof buildProvider>[0];
  const { kid } = await deps.signingKeys.activeFor(world.org.id);
  const standalone = await buildProvider(deps, { id: world.org.id, slug: 'bench' }, kid);
  const server = createServer(standalone.callback()).listen(0, '127.0.0.1');
  await new Promise((ok) => server.once('listening', ok));
  const standaloneToken = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
  const aerieToken = `${world.issuer}/oauth/token`;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(world.clientId)}:${encodeURIComponent(world.clientSecret)}`).toString('base64')}`;
  const grant = async (url: string, form: Record<string, string>) => {
    const res = await fetch(url, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const body = await res.json() as Record<string, string>;
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  // A signed-in browser session: every further authorization request answers a code at once.
  const rp = await relyingParty(world);
  const jar = new CookieJar();
  const first = await authorizationRequest(rp);
  await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, jar, first.url, world.email), { pkceCodeVerifier: first.verifier, expectedState: first.state });
  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  async function freshCodes(n: number): Promise<string[]> {
    const codes: string[] = [];
    for (let i = 0; i < n; i++) {
      const url = oidc.buildAuthorizationUrl(rp, { redirect_uri: REDIRECT_URI, scope: 'openid email offline_access', code_challenge: challenge, code_challenge_method: 'S256', state: `s${i}` });
      const res = await jar.fetch(url.href);
      codes.push(new URL(res.headers.get('location')!).searchParams.get('code')!);
    }
    return codes;
  }
  // Refresh chains, one per concurrent worker per target.
  const chains = async () => Promise.all(Array.from({ length: CONCURRENCY }, async () =>
    (await grant(aerieToken, { grant_type: 'authorization_code', code: (await freshCodes(1))[0]!, redirect_uri: REDIRECT_URI, code_verifier: verifier })).refresh_token!));

  async function refreshRound(url: string, tokens: string[]): Promise<number> {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    const started = performance.now();
    await Promise.all(tokens.map(async (_, w) => {
      while (performance.now() < until) {
        tokens[w] = (await grant(url, { grant_type: 'refresh_token', refresh_token: tokens[w]! })).refresh_token!;
        done++;
      }
    }));
    return done / ((performance.now() - started) / 1000);
  }
  async function codeRound(url: string): Promise<number> {
    const codes = await freshCodes(CODES);
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < codes.length) {
        const code = codes[next++]!;
        await grant(url, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
      }
    }));
    return codes.length / ((performance.now() - started) / 1000);
  }

  const aerieChains = await chains();
  const standaloneChains = await chains();
  await refreshRound(aerieToken, aerieChains); // warm-up
  await refreshRound(standaloneToken, standaloneChains);
  const results = { refreshA: [] as number[], refreshB: [] as number[], codeA: [] as number[], codeB: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    results.refreshA.push(await refreshRound(aerieToken, aerieChains));
    results.refreshB.push(await refreshRound(standaloneToken, standaloneChains));
    results.codeA.push(await codeRound(aerieToken));
    results.codeB.push(await codeRound(standaloneToken));
  }
  server.close();
  const line = (name: string, a: number[], b: number[]) =>
    console.log(`${name}: Aerie ${median(a).toFixed(0)}/s (best ${Math.max(...a).toFixed(0)}), standalone oidc-provider ${median(b).toFixed(0)}/s (best ${Math.max(...b).toFixed(0)}) → ratio ${(median(a) / median(b)).toFixed(2)} median, ${(Math.max(...a) / Math.max(...b)).toFixed(2)} best   (target ≥ 0.80)`);
  console.log(`oidc bench: ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent clients, refresh ${SECONDS} s per round, ${CODES} codes per round`);
  line('refresh_token grants', results.refreshA, results.refreshB);
  line('authorization_code exchanges', results.codeA, results.codeB);

  // Memory with many organizations' providers, in a serving process of its own (`aerie serve` on the
  // same database), read from /proc so the bench client's own memory is not counted.
  const orgs = c.resolve(orgsRefs.organizations.id) as { create(accountId: string, input: { name: string; slug: string; type: string }): Promise<unknown> };
  const [{ id: ownerId }] = await aerie.sql<{ id: string }>("select id from accounts.accounts where email = 'owner@bench.test'");
  const made = performance.now();
  for (let i = 0; i < ORGS; i++) await orgs.create(ownerId, { name: `Org ${i}`, slug: `org-${i}`, type: 'Standard' });
  console.log(`created ${ORGS} organizations in ${((performance.now() - made) / 1000).toFixed(1)} s`);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aerie-bench-'));
  execFileSync(process.execPath, ['./core/cli/build.mjs', '--quiet'], { cwd: REPO_ROOT, stdio: 'inherit' }); // dist/, skipped when up to date
  const serving = spawn(process.execPath, ['./dist/core/cli/main.js', 'serve'], {
    cwd: REPO_ROOT, stdio: 'ignore',
    env: {
      ...process.env, PORT: String(port), AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'warn', AERIE_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: aerie.kernel.config.databaseUrl!, AERIE_MASTER_KEY: readFileSync(join(aerie.dataDir, 'master.key'), 'utf8').trim(),
    },
  });
  try {
    const servingUrl = `http://127.0.0.1:${port}`;
    for (let tries = 0; ; tries++) {
      if ((await fetch(`${servingUrl}/healthz`).catch(() => undefined))?.ok) break;
      if (tries > 300) throw new Error('aerie serve did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${serving.pid}/status`, 'utf8'))![1]) * 1024;
    await (await fetch(`${servingUrl}/api/public/orgs/bench/.well-known/openid-configuration`)).arrayBuffer();
    const before = rss();
    let peak = before;
    for (let i = 0; i < ORGS; i++) {
      const res = await fetch(`${servingUrl}/api/public/orgs/org-${i}/.well-known/openid-configuration`);
      if (res.status !== 200) throw new Error(`discovery of org-${i}: ${res.status}`);
      await res.arrayBuffer();
      if (i % 25 === 0) peak = Math.max(peak, rss());
    }
    const after = rss();
    peak = Math.max(peak, after);
    console.log(`aerie serve (compiled build, node dist/core/cli/main.js), ${ORGS} organizations' providers built one after another (cache bound ${DEFAULT_PROVIDER_CACHE_SIZE}): rss ${mib(before)} after one provider → ${mib(after)} after all (peak ${mib(peak)})   (target: under 300 MiB)`);
  } finally {
    serving.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
} finally {
  await aerie.close();
}
