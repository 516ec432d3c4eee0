/**
 * Benchmark of webhook delivery: sealed audit events fanned out to local HTTPS receivers, side by
 * side with raw undici POSTs of the same signed payloads to the same receivers, against a
 * PostgreSQL server.
 *
 * Measured, in one run:
 * A. Aerie: `--events` events (default 10,000) appended to one organization's chain in batches of
 *    500 and sealed by the kernel's sealer; `--receivers` endpoints (default 10), one per receiver,
 *    each subscribed to every event, so every event is delivered to every receiver. Deliveries/s
 *    is counted from the first append to the last arrival; the seal-to-delivery latency of each
 *    delivery is its arrival time at the receiver minus the event's `sealedAt` (one clock: the
 *    same machine). The dispatcher records each attempt before it leaves and its outcome after.
 * B. raw: the same number of POSTs with the same bodies (byte for byte the envelopes A sent: the
 *    same sealed records and delivery ids) and Standard Webhooks headers signed the same way, sent
 *    with one undici Agent (keep-alive, as Aerie's egress client) to the same receivers with the
 *    same concurrency Aerie uses (4 in flight per receiver), no database.
 * C. latency under a steady load: `--rate` events/s (default 100, i.e. 1,000 deliveries/s with 10
 *    receivers, below A's capacity) for 5 s, appended one transaction every 100 ms; p95 from
 *    `sealedAt` to arrival. (In A's burst every delivery waits behind the whole backlog, so A's
 *    latencies measure the burst's length, not the pipeline.)
 * Targets: A ≥ 0.7 × B deliveries/s; p95 seal-to-delivery < 1 s (C).
 *
 * The receivers run in a child process (HTTPS, a throwaway certificate made by openssl, answering
 * 204 and noting each `webhook-id` with its arrival time); Aerie and the raw sender run here, one
 * after the other.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/webhooks.ts; bash .ci/pg-server.sh stop $PGTMP
 * Options: `--events N` (default 10000), `--receivers N` (default 10), `--rate N` (default 100),
 * `--cpu-prof PREFIX` (CPU profiles of this process during A and during B, `PREFIX-a.cpuprofile` and
 * `PREFIX-b.cpuprofile`, for Chrome DevTools or speedscope).
 * Besides the rates, CPU time per delivery of this process, the receivers and the PostgreSQL server
 * (Linux /proc) in A and in B: less sensitive to the machine's other work than the rates.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { procStat, serverCpuMicros } from './proc-cpu.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { coreRefs, type AuditLog, type AuditService, type Database } from '../core/index.ts';
import { TestAerie } from '../test/helpers/harness.ts';
import { TlsReceiver } from '../test/helpers/tls-receiver.ts';
import { signInWithOrg } from '../test/helpers/orgs.ts';
import { envelopeBodies, signedHeaders } from '../plugins/webhooks/envelope.ts';

const SELF = fileURLToPath(import.meta.url);
const cpuMicros = (u: NodeJS.CpuUsage) => u.user + u.system;
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

// ---------------------------------------------------------------------------------------------
// Child mode: the receivers.
// ---------------------------------------------------------------------------------------------
if (process.argv[2] === '--serve') {
  const n = Number(process.argv[3]);
  const arrivals: Array<[string, number]> = [];
  const servers = await Promise.all(Array.from({ length: n }, () => TlsReceiver.start((q, res) => {
    arrivals.push([String(q.headers['webhook-id']), Date.now()]);
    res.writeHead(204).end();
  })));
  // The receivers keep nothing else: the record list would grow with every request.
  for (const s of servers) s.received.length = 0;
  process.on('message', (m: { type: string }) => {
    if (m.type === 'report') {
      for (const s of servers) s.received.length = 0;
      process.send!({ type: 'report', arrivals: arrivals.splice(0) });
    }
    if (m.type === 'cpu') process.send!({ type: 'cpu', us: cpuMicros(process.cpuUsage()) });
  });
  process.send!({ type: 'ready', urls: servers.map((s) => s.url('/hook')), caFiles: servers.map((s) => s.caFile) });
  await new Promise(() => {});
}

// ---------------------------------------------------------------------------------------------
// Main mode.
// ---------------------------------------------------------------------------------------------
const EVENTS = arg('events', 10_000);
const RECEIVERS = arg('receivers', 10);
const RATE = arg('rate', 100);
const PER_ENDPOINT = 4;
const PROFILE_TO = process.argv.includes('--cpu-prof') ? process.argv[process.argv.indexOf('--cpu-prof') + 1]! : undefined;

const child: ChildProcess = fork(SELF, ['--serve', String(RECEIVERS)], { execArgv: ['--import', 'tsx'] });
process.on('exit', () => child.kill('SIGKILL'));
const ask = <T>(type: string, send = true): Promise<T> => new Promise((resolve) => {
  const on = (m: { type: string }) => {
    if (m.type !== type) return;
    child.off('message', on);
    resolve(m as T);
  };
  child.on('message', on);
  if (send) child.send({ type });
});

const { urls, caFiles } = await ask<{ urls: string[]; caFiles: string[] }>('ready', false);
if (!process.env.TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)")');
const aerie = await TestAerie.start({ overrides: { 'egress.allowLoopback': true, 'egress.caFiles': caFiles, 'log.level': 'warn' } });
try {
  const org = await signInWithOrg(aerie, 'owner@bench.test', 'bench');
  const secrets: string[] = [];
  for (const url of urls) {
    const res = await aerie.request('POST', '/api/org/bench/webhook-endpoints', { token: org.owner, body: { url, events: ['bench.*'] } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    secrets.push(res.body.secret);
  }
  const [{ pid: backendPid }] = await aerie.sql<{ pid: number }>('select pg_backend_pid() as pid');
  const postmaster = procStat(backendPid!)?.ppid;
  /** CPU time (µs) of this process, the receivers and the PostgreSQL server over one phase, and its CPU profile with `--cpu-prof`. */
  const meter = async (phase: string) => {
    const session = PROFILE_TO ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const self0 = process.cpuUsage();
    const receivers0 = (await ask<{ us: number }>('cpu')).us;
    const postgres0 = postmaster ? serverCpuMicros(postmaster) : undefined;
    return {
      stop: async () => {
        const self = cpuMicros(process.cpuUsage(self0));
        const receivers = (await ask<{ us: number }>('cpu')).us - receivers0;
        const postgres = postmaster && postgres0 !== undefined ? serverCpuMicros(postmaster) - postgres0 : undefined;
        if (session) {
          writeFileSync(`${PROFILE_TO}-${phase}.cpuprofile`, JSON.stringify((await session.post('Profiler.stop')).profile));
          session.disconnect();
        }
        return { self, receivers, postgres };
      },
    };
  };
  const audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
  const db = aerie.kernel.container.resolve<Database>(coreRefs.db.id);
  const auditLog = aerie.kernel.container.resolve<AuditLog>(coreRefs.auditLog.id);

  // A. Aerie.
  const total = EVENTS * RECEIVERS;
  const meterA = await meter('a');
  const t0 = Date.now();
  for (let i = 0; i < EVENTS; i += 500) {
    const batch = Array.from({ length: Math.min(500, EVENTS - i) }, (_, k) => ({ orgId: org.id, eventType: 'bench.event', businessData: { n: i + k, note: 'x'.repeat(200) } }));
    await db.transaction((trx) => audit.appendMany(trx, batch));
  }
  const appendedAt = Date.now();
  let arrivals: Array<[string, number]> = [];
  for (;;) {
    arrivals = arrivals.concat((await ask<{ arrivals: Array<[string, number]> }>('report')).arrivals);
    if (arrivals.length >= total) break;
    if (Date.now() - t0 > 600_000) throw new Error(`only ${arrivals.length} of ${total} deliveries arrived`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const tA = (Math.max(...arrivals.map(([, at]) => at)) - t0) / 1000;
  const cpuA = await meterA.stop();
  const sealedAt = new Map<string, number>();
  const rows = await aerie.sql<{ id: string; sealed_at: Date }>(
    'select d.id, e.sealed_at from webhooks.deliveries d join core.audit_events e on e.id = d.audit_event_id where d.org_id = ?', [org.id]);
  for (const r of rows) sealedAt.set(r.id, new Date(r.sealed_at).getTime());
  const lat = arrivals.map(([id, at]) => at - sealedAt.get(id)!).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const sealedTimes = [...new Set(sealedAt.values())].sort((a, b) => a - b);
  const firstArrival = Math.min(...arrivals.map(([, at]) => at));
  const timeline = `appended in ${appendedAt - t0} ms; sealed ${sealedTimes[0]! - t0}–${sealedTimes.at(-1)! - t0} ms; arrivals ${firstArrival - t0}–${Math.max(...arrivals.map(([, at]) => at)) - t0} ms after the first append`;
  const outcomes = await aerie.sql<{ outcome: string; n: number }>('select outcome, count(*)::int as n from webhooks.deliveries where org_id = ? group by 1', [org.id]);

  // B. raw undici: byte for byte the envelopes A sent (the same sealed records, the same delivery
  // ids), signed the same way, to the same receivers with the same concurrency and keep-alive.
  const records = await auditLog.records(org.id, { fromSeq: 1, limit: EVENTS + 100 });
  const bench = records.filter((r) => r.eventType === 'bench.event');
  const endpointIds = new Map((await aerie.sql<{ id: string; url: string }>('select id, url from webhooks.endpoints where org_id = ?', [org.id])).map((e) => [e.url, e.id]));
  const deliveryIds = new Map((await aerie.sql<{ id: string; endpoint_id: string; audit_event_id: string }>(
    'select id, endpoint_id, audit_event_id from webhooks.deliveries where org_id = ?', [org.id])).map((d) => [`${d.endpoint_id}|${d.audit_event_id}`, d.id]));
  const bodyFor = bench.map((r) => envelopeBodies(r));
  const idsFor = urls.map((url) => bench.map((r) => deliveryIds.get(`${endpointIds.get(url)}|${r.id}`)!));
  if (bench.length !== EVENTS || idsFor.some((ids) => ids.some((id) => !id))) throw new Error('B needs every delivery A recorded');
  const agent = new Agent({ connect: { ca: caFiles.map((f) => readFileSync(f, 'utf8')) }, keepAliveTimeout: 4_000 });
  const meterB = await meter('b');
  const t1 = Date.now();
  await Promise.all(urls.map(async (url, r) => {
    let next = 0;
    await Promise.all(Array.from({ length: PER_ENDPOINT }, async () => {
      for (let n = next++; n < EVENTS; n = next++) {
        const id = idsFor[r]![n]!;
        const body = bodyFor[n]!(id);
        const res = await request(url, { method: 'POST', dispatcher: agent, body, headers: signedHeaders(secrets[r]!, id, new Date(), body) });
        await res.body.dump();
      }
    }));
  }));
  const tB = (Date.now() - t1) / 1000;
  const cpuB = await meterB.stop();
  await agent.close();
  await ask('report');

  // C. steady load.
  const steadyFrom = Date.now();
  for (let tick = 0; tick < 50; tick++) {
    const batch = Array.from({ length: Math.max(1, Math.round(RATE / 10)) }, (_, k) => ({ orgId: org.id, eventType: 'bench.steady', businessData: { tick, k } }));
    await db.transaction((trx) => audit.appendMany(trx, batch));
    await new Promise((r) => setTimeout(r, Math.max(0, steadyFrom + (tick + 1) * 100 - Date.now())));
  }
  const steadyTotal = 50 * Math.max(1, Math.round(RATE / 10)) * RECEIVERS;
  let steady: Array<[string, number]> = [];
  for (const until = Date.now() + 60_000; steady.length < steadyTotal && Date.now() < until;) {
    steady = steady.concat((await ask<{ arrivals: Array<[string, number]> }>('report')).arrivals);
    await new Promise((r) => setTimeout(r, 200));
  }
  const steadySealed = new Map((await aerie.sql<{ id: string; sealed_at: Date }>(
    "select d.id, e.sealed_at from webhooks.deliveries d join core.audit_events e on e.id = d.audit_event_id where d.org_id = ? and d.event_type = 'bench.steady'", [org.id],
  )).map((r) => [r.id, new Date(r.sealed_at).getTime()]));
  const latC = steady.map(([id, at]) => at - steadySealed.get(id)!).filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const pctC = (p: number) => latC[Math.min(latC.length - 1, Math.floor(p * latC.length))]!;

  const rateA = total / tA;
  const rateB = total / tB;
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  console.log(`webhooks: ${EVENTS} events × ${RECEIVERS} receivers = ${total} deliveries (${PER_ENDPOINT} in flight per receiver)`);
  console.log(`A. Aerie (seal → record → send → record): ${rateA.toFixed(0)} deliveries/s (${tA.toFixed(2)} s); outcomes at the last arrival ${JSON.stringify(Object.fromEntries(outcomes.map((o) => [o.outcome, o.n])))}`);
  console.log(`   ${timeline}`);
  console.log(`   seal → arrival: p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, p99 ${pct(0.99)} ms, max ${lat.at(-1)} ms   (target p95 < 1000 ms)`);
  console.log(`B. raw undici POSTs, the same envelopes: ${rateB.toFixed(0)} requests/s (${tB.toFixed(2)} s)`);
  console.log(`A / B = ${(rateA / rateB).toFixed(2)}   (target ≥ 0.70)`);
  const perDelivery = (us: number | undefined) => (us === undefined ? 'n/a' : `${(us / total).toFixed(0)} µs`);
  console.log(`CPU per delivery, A | B: this process ${perDelivery(cpuA.self)} | ${perDelivery(cpuB.self)}; receivers ${perDelivery(cpuA.receivers)} | ${perDelivery(cpuB.receivers)}; PostgreSQL ${perDelivery(cpuA.postgres)} | ${perDelivery(cpuB.postgres)}`);
  // On a busy machine the rates scatter with the other work; the CPU each side needs per delivery does much less.
  const cpuTotal = (c: { self: number; receivers: number; postgres?: number }) => c.self + c.receivers + (c.postgres ?? 0);
  console.log(`   all three: A ${perDelivery(cpuTotal(cpuA))}, B ${perDelivery(cpuTotal(cpuB))}; B / A = ${(cpuTotal(cpuB) / cpuTotal(cpuA)).toFixed(2)}   (the rate ratio were the cores the only limit)`);
  console.log(`C. steady ${RATE} events/s × ${RECEIVERS} receivers for 5 s: ${latC.length} of ${steadyTotal} arrived; seal → arrival p50 ${pctC(0.5)} ms, p95 ${pctC(0.95)} ms, p99 ${pctC(0.99)} ms   (target p95 < 1000 ms)`);
} finally {
  await aerie.close();
  child.kill('SIGKILL');
}
