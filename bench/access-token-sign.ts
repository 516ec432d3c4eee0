/**
 * Benchmark of the access-token JWS step alone (no HTTP, no database), side by side in one process:
 * A. Aerie's signer (`plugins/keys/compact-jws.ts`): claims encoded on the event loop, RS256 signed
 *    with asynchronous `crypto.sign` on libuv's thread pool;
 * B. jose's `CompactSign` (WebCrypto, also asynchronous) with the same `KeyObject`, header and claims;
 * C. the same encoding signed with synchronous `crypto.sign` on the event loop (what `fast-jwt` did).
 * Each keeps 16 signatures in flight (as 32 connections would) for `--ms` per round, in interleaved
 * rounds; printed per target: tokens per second (best and median round), CPU of the whole process
 * per token (event loop and pool threads, `process.cpuUsage`) and the event loop's own busy time
 * per token (`performance.eventLoopUtilization`), which is what an HTTP server has left for requests.
 *
 * Run: node --import tsx bench/access-token-sign.ts [--ms 1500] [--rounds 3]
 * (`UV_THREADPOOL_SIZE` applies, default 4).
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CompactSign } from 'jose';
import { encodeSegment, rs256Signer } from '../plugins/keys/compact-jws.ts';

const { values: options } = parseArgs({ options: { ms: { type: 'string', default: '1500' }, rounds: { type: 'string', default: '3' } } });
const MS = Number(options.ms);
const ROUNDS = Number(options.rounds);
const IN_FLIGHT = 16;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
const header = { alg: 'RS256', typ: 'at+jwt', kid: 'x'.repeat(43) } as const;
const base = 'https://aerie.example.com';
const claims = () => {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: `${base}/api/public/orgs/bench`, sub: randomUUID(), aud: `${base}/api/org/bench`, org: 'bench',
    scope: 'org.bench.read org.member.list', client_id: randomUUID(), jti: randomUUID(), iat, exp: iat + 300,
  };
};

const aerie = rs256Signer(privateKey, header);
const encoder = new TextEncoder();
const encodedHeader = encodeSegment(header);
const targets: Record<string, () => Promise<string>> = {
  'Aerie: crypto.sign on libuv\'s pool (compact-jws.ts)': () => aerie(claims()),
  'jose CompactSign (WebCrypto)': () => new CompactSign(encoder.encode(JSON.stringify(claims()))).setProtectedHeader(header).sign(privateKey),
  'synchronous crypto.sign on the event loop': async () => {
    const input = `${encodedHeader}.${encodeSegment(claims())}`;
    return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  },
};

interface Round { perSecond: number; cpuUs: number; loopUs: number }

async function round(fn: () => Promise<string>): Promise<Round> {
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const until = t0 + MS;
  const made = await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    let count = 0;
    for (; performance.now() < until; count++) await fn();
    return count;
  }));
  const n = made.reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  return { perSecond: n / seconds, cpuUs: (cpu.user + cpu.system) / n, loopUs: (elu.active * 1000) / n };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results: Record<string, Round[]> = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
for (const fn of Object.values(targets)) await round(fn); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const [name, fn] of Object.entries(targets)) results[name].push(await round(fn));

console.log(`${availableParallelism()} hardware threads, libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; Node ${process.version}; ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${MS} ms`);
console.log(`${''.padEnd(52)} ${'best/s'.padStart(7)} ${'median/s'.padStart(8)} ${'CPU/token'.padStart(10)} ${'event loop/token'.padStart(17)}`);
for (const [name, rs] of Object.entries(results)) {
  console.log(`${name.padEnd(52)} ${Math.max(...rs.map((x) => x.perSecond)).toFixed(0).padStart(7)} ${median(rs.map((x) => x.perSecond)).toFixed(0).padStart(8)} ${`${median(rs.map((x) => x.cpuUs)).toFixed(0)} µs`.padStart(10)} ${`${median(rs.map((x) => x.loopUs)).toFixed(0)} µs`.padStart(17)}`);
}
const [ours, jose] = Object.values(results);
console.log(`\nCPU per token, jose CompactSign / Aerie's signer: ${(median(jose.map((x) => x.cpuUs)) / median(ours.map((x) => x.cpuUs))).toFixed(2)}×; event loop per token: ${(median(jose.map((x) => x.loopUs)) / median(ours.map((x) => x.loopUs))).toFixed(2)}×`);
