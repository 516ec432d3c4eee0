/**
 * Benchmark of issue 5: audit ingestion on a PostgreSQL server, side by side in one run, same rows,
 * same table shape and indexes (`create table … (like core.audit_events including all)`), same
 * `synchronous_commit` (the server's setting, printed; nothing here changes it):
 * a. Aerie end to end: `core.audit.appendMany` into the outbox (batches of 1,000, one transaction
 *    and one statement each; the kernel's background sealer already runs meanwhile) then the
 *    sealer's `drain()` until the outbox is empty (per batch of 2,000: take + render JSON text,
 *    lock heads, hash, DELETE … RETURNING → INSERT of the sealed rows, advance heads) → sealed
 *    chain; events/s from the first append to the last commit;
 * b. baseline: raw COPY of the very same sealed rows into an identical table — the machine's limit.
 *    The rows are read back with `COPY (select * from core.audit_events order by org_id, seq) TO
 *    STDOUT` (text format) before the timing starts, then the timing covers one `COPY
 *    bench.raw_events FROM STDIN` of those bytes through `pg-copy-streams` on a dedicated `pg.Client`
 *    (one statement, one transaction, no client-side encoding in the timed part);
 * c. naive per-event chaining: per event one transaction — lock the head row `FOR UPDATE`, hash,
 *    insert, update the head, commit (run on the first `--naive` events only, it is slow; events/s);
 * e. sealed batch ingestion at the service level: `core.audit.ingest` (record hash version 2: payload
 *    hashes and COPY rows before the head lock, in-line; then lock, chain, COPY, advance, commit) of
 *    the same events, in 1,000-event batches, 4 callers at a time over the same organizations,
 *    into an emptied `core.audit_events` (as b's table is empty); events/s from the first call to
 *    the last answer, each answer meaning sealed; the chains are verified afterwards. Warmed first
 *    (ten batches into organizations of their own, then emptied), as a running service is;
 * e'. e with each batch rendered on a `core.workers` pool (2 warmed threads: canonical form and size check,
 *    payload hashes, COPY rows) instead of in-line;
 * f. the same through HTTP: `POST /api/public/v1/audit/events` with 1,000-event bodies on 4
 *    keep-alive connections (undici), one organization's API key (so every batch takes the same
 *    head lock), into an emptied table again, after ten warm-up requests; events/s from the first
 *    request to the last 201. (A client on a worker thread of its own measured slower: 0.34 vs 0.37–0.41.)
 * g. the raw batch archive of f's events (`BatchFiles.drain()`), which follows the chains in the
 *    background and is stopped during e, e' and f so that they measure ingestion alone.
 * d. hashing alone on the same input: in-line single thread (`sealBatch`) vs the worker pool
 *    (the chain's tasks on a `core.workers` pool, 2 threads warmed first, one organization per task,
 *    all in flight together), for record objects (`sealJson(JSON.stringify(records))`) and for JSON text, the form the sealer hands
 *    over (`sealBatch(JSON.parse(text))` in-line vs `pool.sealJson(text)`); per core = pool ÷
 *    (in-line × threads); the target is stated against the machine's own per-core scaling in
 *    `bench/audit-hash.ts` (efficiency ÷ scaling ≥ 0.9).
 * Prints the ratios and the process's peak RSS after each phase.
 * Also the CPU per event of this process (all its threads; in f it is the HTTP client too) and of
 * the PostgreSQL server (Linux /proc: the postmaster and its children) in b, e, e' and f, and b's CPU
 * per row over e's and f's CPU per event: the same comparison without the core count.
 * Targets (issue "audit at scale"):
 * e ≥ 0.7 × b, f ≥ 0.5 × b. Bounded well under 3 minutes.
 *
 * Run: eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/audit-ingest.ts [--events N] [--orgs N] [--naive N];
 * bash .ci/pg-server.sh stop $PGTMP (uses `TEST_DATABASE_URL` or `DATABASE_URL`, loopback only).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { Kernel } from '../core/kernel.ts';
import { coreRefs } from '../core/core-refs.ts';
import type { AuditService } from '../core/audit/audit-service.types.ts';
import { readChain } from '../core/audit/read-chain.ts';
import { GENESIS_HASH, registerChainTasks, sealBatch, toAuditTimestamp, verifyRecords, type AuditRecordInput } from '../core/audit/chain/index.ts';
import { WorkerPool } from '../core/workers/worker-pool.ts';
import { createTestDatabase } from '../test/helpers/pg-databases.ts';
import { latestCode } from '../test/helpers/mail.ts';
import pino from 'pino';
import { AuditIngestor } from '../core/audit/ingest.ts';
import { systemClock } from '../core/clock.ts';
import { Agent, request } from 'undici';
import { postmasterOf, serverCpuMicros } from './proc-cpu.ts';
import { auditRefs, type BatchFiles } from '../plugins/audit/api.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const EVENTS = arg('events', 50_000);
const ORGS = arg('orgs', 10);
const NAIVE = arg('naive', 3_000);
const adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
if (!adminUrl) throw new Error('set TEST_DATABASE_URL (eval "$(bash .ci/pg-server.sh)")');
const host = new URL(adminUrl).hostname;
if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host) && !host.startsWith('/')) throw new Error(`loopback only, got ${host}`);

const rss = () => `${Math.round(process.resourceUsage().maxRSS / 1024)} MB`;
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');
/** CPU of this process (all its threads) and of the PostgreSQL server over a phase, in µs per event. */
type CpuSplit = { node: number; postgres: number; total: number };
let postmaster = 0;
const cpuStart = () => ({ node: process.cpuUsage(), postgres: serverCpuMicros(postmaster) });
const cpuSince = (start: ReturnType<typeof cpuStart>, events: number): CpuSplit => {
  const n = process.cpuUsage(start.node);
  const node = (n.user + n.system) / events;
  const postgres = (serverCpuMicros(postmaster) - start.postgres) / events;
  return { node, postgres, total: node + postgres };
};
const cpuText = (c: CpuSplit) => `CPU per event ${c.total.toFixed(1)} µs (this process ${c.node.toFixed(1)}, PostgreSQL ${c.postgres.toFixed(1)})`;

const db = await createTestDatabase(adminUrl);
const dataDir = mkdtempSync(join(tmpdir(), 'aerie-bench-'));
const kernel = await Kernel.boot({ env: { AERIE_DATA_DIR: dataDir, DATABASE_URL: db.url, AERIE_PLUGINS: 'accounts,orgs,keys,audit', AERIE_LOG_LEVEL: 'warn' }, cwd: dataDir });
const { url: baseUrl } = await kernel.listen(0, '127.0.0.1');
const knex = kernel.db.knex;
const deadline = setTimeout(() => { console.error('bench exceeded 3 minutes'); process.exit(2); }, 180_000);
try {
  const sync = (await knex.raw('show synchronous_commit')).rows[0].synchronous_commit;
  const version = (await knex.raw('show server_version')).rows[0].server_version;
  postmaster = postmasterOf(Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid));
  console.log(`PostgreSQL ${version}, synchronous_commit=${sync}; ${fmt(EVENTS)} events over ${ORGS} organizations; node ${process.version}`);
  const orgs = Array.from({ length: ORGS }, () => randomUUID());
  const audit = kernel.container.resolve<AuditService>(coreRefs.audit.id);
  const inputs = Array.from({ length: EVENTS }, (_, i) => ({
    orgId: orgs[i % ORGS], eventType: i % 7 === 0 ? 'app.member.invited' : 'app.order.placed',
    businessData: { i, orderId: `ord_${i}`, amountMinor: (i * 37) % 100_000, currency: 'EUR', note: 'bench ✓' },
  }));

  // a. Aerie: outbox append + sealer drain.
  const t0 = performance.now();
  for (let i = 0; i < inputs.length; i += 1000) await kernel.db.transaction((trx) => audit.appendMany(trx, inputs.slice(i, i + 1000)));
  const t1 = performance.now();
  await kernel.auditSealer.drain();
  const t2 = performance.now();
  const sealed = Number((await knex('core.audit_events').count({ n: '*' }))[0].n);
  if (sealed !== EVENTS) throw new Error(`sealed ${sealed} of ${EVENTS}`);
  const aRate = rate(EVENTS, t2 - t0);
  console.log(`a. Aerie outbox → sealed chain: ${fmt(aRate)} events/s end to end (append ${Math.round(t1 - t0)} ms + seal ${Math.round(t2 - t1)} ms = ${Math.round(t2 - t0)} ms; the background sealer runs during the appends too); peak RSS ${rss()}`);
  const chain0 = await readChain(knex, orgs[0]);
  if (!verifyRecords(chain0).ok) throw new Error('chain does not verify');

  // b. Baseline: COPY of the same sealed rows (text format, as the server itself renders them).
  await knex.raw('create schema bench');
  await knex.raw('create table bench.raw_events (like core.audit_events including all)');
  const copyClient = new pg.Client({ connectionString: db.url });
  await copyClient.connect();
  let copyRows = 0;
  let t3 = 0;
  let t4 = 0;
  let bCpu0 = cpuStart();
  let bCpu: CpuSplit = { node: 0, postgres: 0, total: 0 };
  try {
    const chunks: Buffer[] = [];
    const out = copyClient.query(copyTo('copy (select * from core.audit_events order by org_id, seq) to stdout'));
    for await (const chunk of out) chunks.push(chunk as Buffer);
    bCpu0 = cpuStart();
    t3 = performance.now();
    const into = copyClient.query(copyFrom('copy bench.raw_events from stdin'));
    await pipeline(Readable.from(chunks), into);
    t4 = performance.now();
    bCpu = cpuSince(bCpu0, EVENTS);
    copyRows = into.rowCount;
  } finally {
    await copyClient.end();
  }
  if (copyRows !== EVENTS) throw new Error(`COPY loaded ${copyRows} of ${EVENTS} rows`);
  const bRate = rate(copyRows, t4 - t3);
  console.log(`b. baseline COPY … FROM STDIN (pg-copy-streams, text format, one statement) of the same ${fmt(copyRows)} sealed rows: ${fmt(bRate)} rows/s (${Math.round(t4 - t3)} ms); ${cpuText(bCpu)}; peak RSS ${rss()}`);

  // e. Sealed batch ingestion, service level: 4 callers, 1,000-event batches, into an emptied table.
  const emptyChain = () => knex.raw('truncate core.audit_events, core.audit_heads, core.audit_checkpoints');
  // The raw batch archive follows the chains in the background; from here on it is stopped, so e, e'
  // and f each measure ingestion alone (the archive's cursor would also stand past the emptied
  // chains), and g measures archiving f's events on its own.
  const batchArchive = kernel.container.resolve<BatchFiles>(auditRefs.batchFiles.id);
  await batchArchive.stop();
  await emptyChain();
  const batches: Array<{ orgId: string; events: Array<{ eventType: string; businessData: Record<string, unknown> }> }> = [];
  for (let i = 0; i < EVENTS; i += 1000) {
    const slice = inputs.slice(i, i + 1000);
    batches.push({ orgId: orgs[(i / 1000) % ORGS], events: slice.map(({ eventType, businessData }) => ({ eventType, businessData })) });
  }
  const callers = async <T>(n: number, work: (i: number) => Promise<T>) => {
    let next = 0;
    await Promise.all(Array.from({ length: n }, async () => {
      while (next < batches.length) await work(next++);
    }));
  };
  // Warm-up outside the timing, as a running service is warm: the first calls load pg-copy-streams
  // and compile the ingestion path (in a fresh process, the first 50,000 events cost about twice the
  // CPU per event of later runs; here phase a has already warmed what the two paths share). Ten
  // batches into organizations of their own, then emptied again.
  const warmOrgs = Array.from({ length: 4 }, () => randomUUID());
  await Promise.all(warmOrgs.map(async (orgId, k) => { for (let i = k; i < 10; i += 4) await audit.ingest(orgId, batches[i].events); }));
  await emptyChain();
  const eCpu0 = cpuStart();
  const t7 = performance.now();
  await callers(4, (i) => audit.ingest(batches[i].orgId, batches[i].events));
  const t8 = performance.now();
  const eCpu = cpuSince(eCpu0, EVENTS);
  const eSealed = Number((await knex('core.audit_events').count({ n: '*' }))[0].n);
  if (eSealed !== EVENTS) throw new Error(`ingest sealed ${eSealed} of ${EVENTS}`);
  for (const orgId of orgs) if (!verifyRecords(await readChain(knex, orgId)).ok) throw new Error('ingested chain does not verify');
  const eRate = rate(EVENTS, t8 - t7);
  console.log(`e. core.audit.ingest (sealed on answer, 4 callers, 1,000-event batches): ${fmt(eRate)} events/s (${Math.round(t8 - t7)} ms); ${cpuText(eCpu)}; chains verified; peak RSS ${rss()}`);

  // e'. The same with each batch rendered in the worker pool instead of in-line.
  await emptyChain();
  const eWorkers = new WorkerPool({ maxThreads: 2 });
  const ePool = registerChainTasks(eWorkers);
  await ePool.warm();
  const pooledIngest = new AuditIngestor(kernel.db, systemClock, pino({ level: 'silent' }), { pool: ePool, poolThreshold: 1 });
  const ePoolCpu0 = cpuStart();
  const t7p = performance.now();
  await callers(4, (i) => pooledIngest.ingest(batches[i].orgId, batches[i].events));
  const t8p = performance.now();
  const ePoolCpu = cpuSince(ePoolCpu0, EVENTS);
  await eWorkers.close();
  for (const orgId of orgs) if (!verifyRecords(await readChain(knex, orgId)).ok) throw new Error('pool-hashed chain does not verify');
  const ePoolRate = rate(EVENTS, t8p - t7p);
  console.log(`e'. the same, rendered in the worker pool (2 threads) instead of in-line: ${fmt(ePoolRate)} events/s (${Math.round(t8p - t7p)} ms); ${cpuText(ePoolCpu)}; chains verified`);

  // f. The same events through HTTP, one organization's API key, 4 keep-alive connections.
  const json = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, any> };
  };
  await json('/api/v1/users/registration/email', { email: 'bench@example.com', displayName: 'Bench' });
  const session = await json('/api/v1/users/verification/email', { email: 'bench@example.com', code: latestCode(dataDir, 'bench@example.com') });
  const auth = { authorization: `Bearer ${session.body.sessionToken}` };
  if ((await json('/api/org/create', { name: 'Bench', slug: 'bench' }, auth)).status !== 201) throw new Error('org not created');
  const apiKey = (await json('/api/org/bench/settings/keys/api-keys', { name: 'ingest' }, auth)).body.apiKey as string;
  await kernel.auditSealer.drain();
  await emptyChain();
  const bodies = batches.map((b) => JSON.stringify({ events: b.events }));
  const agent = new Agent({ connections: 4, pipelining: 1 });
  const postBatch = async (i: number) => {
    const res = await request(`${baseUrl}/api/public/v1/audit/events`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: bodies[i] });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`ingest answered ${res.statusCode}: ${text.slice(0, 300)}`);
  };
  await Promise.all(Array.from({ length: 4 }, async (_, k) => { for (let i = k; i < 10; i += 4) await postBatch(i); })); // warm-up, as for e
  await emptyChain();
  const fCpu0 = cpuStart();
  const t9 = performance.now();
  await callers(4, postBatch);
  const t10 = performance.now();
  const fCpu = cpuSince(fCpu0, EVENTS);
  await agent.close();
  const fSealed = Number((await knex('core.audit_events').where('eventType', 'in', ['app.member.invited', 'app.order.placed']).count({ n: '*' }))[0].n);
  if (fSealed !== EVENTS) throw new Error(`HTTP ingest sealed ${fSealed} of ${EVENTS}`);
  const fRate = rate(EVENTS, t10 - t9);
  console.log(`f. POST /api/public/v1/audit/events (201 = sealed, 4 connections, 1,000-event bodies, one organization): ${fmt(fRate)} events/s (${Math.round(t10 - t9)} ms); ${cpuText(fCpu)} (this process is the HTTP client too); peak RSS ${rss()}`);

  // g. The raw batch archive of f's events (read back, JSONL with checkpoints, SHA-256, blob store).
  const gCpu0 = cpuStart();
  const tg = performance.now();
  const files = await batchArchive.drain();
  const gMs = performance.now() - tg;
  const gCpu = cpuSince(gCpu0, EVENTS);
  const archived = files.reduce((n, f) => n + f.lastSeq - f.firstSeq + 1, 0);
  if (archived < EVENTS) throw new Error(`archived ${archived} of ${EVENTS}`);
  console.log(`g. batch archive of those events (background work, not in e or f): ${files.length} files, ${fmt(rate(archived, gMs))} events/s (${Math.round(gMs)} ms); ${cpuText(gCpu)}`);

  // c. Naive per-event chained insert.
  await knex.raw('create table bench.naive_events (like core.audit_events including all)');
  await knex.raw('create table bench.naive_heads (like core.audit_heads including all)');
  const naiveOrg = randomUUID();
  await knex('bench.naive_heads').insert({ orgId: naiveOrg, seq: 0, chainHash: GENESIS_HASH, updatedAt: new Date() });
  const t5 = performance.now();
  for (let i = 0; i < NAIVE; i++) {
    await knex.transaction(async (trx) => {
      const head = await trx('bench.naive_heads').where({ orgId: naiveOrg }).forUpdate().first();
      const sealedAt = toAuditTimestamp(new Date());
      const record: AuditRecordInput = {
        id: randomUUID(), orgId: naiveOrg, seq: Number(head.seq) + 1, eventType: inputs[i].eventType, occurredAt: sealedAt,
        actor: { type: 'system', id: 'system' }, businessData: inputs[i].businessData,
      };
      const { sealed: [h], head: next } = sealBatch(head.chainHash, [record], sealedAt);
      await trx('bench.naive_events').insert({
        id: record.id, orgId: naiveOrg, seq: record.seq, eventType: record.eventType, occurredAt: sealedAt, actorType: 'system', actorId: 'system',
        businessData: JSON.stringify(record.businessData), payloadHash: h.payloadHash, prevHash: h.prevHash, chainHash: h.chainHash, sealedAt,
      });
      await trx('bench.naive_heads').where({ orgId: naiveOrg }).update({ seq: next.seq, chainHash: next.chainHash, updatedAt: new Date() });
    });
  }
  const t6 = performance.now();
  const cRate = rate(NAIVE, t6 - t5);
  console.log(`c. naive per-event chained insert (lock head, hash, insert, commit), first ${fmt(NAIVE)} events: ${fmt(cRate)} events/s (${Math.round(t6 - t5)} ms); peak RSS ${rss()}`);

  // d. Hashing only, same input: in-line vs worker pool, for record objects and for the JSON text
  //    the sealer actually hands over (PostgreSQL renders each organization's batch as JSON text).
  const sealedAt = toAuditTimestamp(new Date());
  const byOrg = orgs.map((orgId) => inputs.filter((e) => e.orgId === orgId).map((e, k): AuditRecordInput => ({
    id: randomUUID(), orgId, seq: k + 1, eventType: e.eventType, occurredAt: sealedAt, actor: { type: 'system', id: 'system' }, businessData: e.businessData,
  })));
  const texts = byOrg.map((records) => JSON.stringify(records));
  const dWorkers = new WorkerPool({ maxThreads: 2 });
  const pool = registerChainTasks(dWorkers);
  await pool.warm(); // start both threads outside the timing, as the sealer does at start()
  sealBatch(GENESIS_HASH, byOrg[0].slice(0, 200), sealedAt); // and warm the in-line path alike
  const timed = async <T>(fn: () => Promise<T> | T) => {
    const t = performance.now();
    const value = await fn();
    return { ms: performance.now() - t, value };
  };
  const inObj = await timed(() => byOrg.map((records) => sealBatch(GENESIS_HASH, records, sealedAt)));
  const poolObj = await timed(() => Promise.all(byOrg.map((records) => pool.sealJson(GENESIS_HASH, JSON.stringify(records), sealedAt))));
  const inText = await timed(() => texts.map((text) => sealBatch(GENESIS_HASH, JSON.parse(text) as AuditRecordInput[], sealedAt)));
  const poolText = await timed(() => Promise.all(texts.map((text) => pool.sealJson(GENESIS_HASH, text, sealedAt))));
  await dWorkers.close();
  for (const run of [poolObj, inText, poolText]) {
    if (run.value.some((p, i) => p.head.chainHash !== inObj.value[i].head.chainHash)) throw new Error('pool and in-line disagree');
  }
  const d = (inline: { ms: number }, pooled: { ms: number }) => ({ inRate: rate(EVENTS, inline.ms), poolRate: rate(EVENTS, pooled.ms), perCore: inline.ms / pooled.ms / dWorkers.maxThreads });
  const dObj = d(inObj, poolObj);
  const dText = d(inText, poolText);
  for (const [name, r] of [['record objects', dObj], ['JSON text (the sealer\'s path)', dText]] as const) {
    console.log(`d. hashing only, ${name}: in-line single thread ${fmt(r.inRate)} records/s vs worker pool (${dWorkers.maxThreads} threads) ${fmt(r.poolRate)} records/s, ` +
      `speed-up ${(r.poolRate / r.inRate).toFixed(2)}x, per core ${r.perCore.toFixed(2)}`);
  }
  console.log(`   same heads in-line and pool; peak RSS ${rss()}`);

  console.log('ratios:');
  console.log(`  a / b (Aerie end to end vs COPY of the same rows):       ${(aRate / bRate).toFixed(2)}`);
  console.log(`  e / b (sealed ingestion, service level, vs COPY):        ${(eRate / bRate).toFixed(2)}  (target >= 0.7)`);
  console.log(`  e' / b (the same, rendered in the worker pool):         ${(ePoolRate / bRate).toFixed(2)}`);
  console.log(`  f / b (sealed ingestion through HTTP vs COPY):           ${(fRate / bRate).toFixed(2)}  (target >= 0.5)`);
  console.log(`  by CPU per event (b ÷ e, b ÷ f): e ${(bCpu.total / eCpu.total).toFixed(2)}, e' ${(bCpu.total / ePoolCpu.total).toFixed(2)}, f ${(bCpu.total / fCpu.total).toFixed(2)}` +
    ` — the same comparison without the cores' count: what each sealed event costs the machine against what COPY's row costs it`);
  console.log(`  a / c (Aerie vs naive per-event chaining):               ${(aRate / cRate).toFixed(1)}x`);
  console.log(`  d pool per core ÷ in-line, JSON text (sealer's path):    ${dText.perCore.toFixed(2)}  (speed-up ${(dText.poolRate / dText.inRate).toFixed(2)}x on ${dWorkers.maxThreads} threads)`);
  console.log(`  d pool per core ÷ in-line, record objects:               ${dObj.perCore.toFixed(2)}  (speed-up ${(dObj.poolRate / dObj.inRate).toFixed(2)}x)`);
  console.log(`peak RSS of this process (kernel, database client, worker threads): ${rss()}`);
} finally {
  clearTimeout(deadline);
  await kernel.close();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
