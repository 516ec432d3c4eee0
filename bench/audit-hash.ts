/**
 * Benchmark: in-line single-thread chain hashing vs the worker pool (`core.workers`), same input.
 *
 * Input: 200 000 records, 4 organizations, batches of 500 (one organization's batch per task),
 * in two forms, each measured both ways:
 * A. record objects in memory — (1) in-line `sealBatch(prev, batch, sealedAt)`; (2)
 *    `sealJson(prev, JSON.stringify(batch), sealedAt)` (one JSON string posted, parsed in the worker);
 * B. each batch as JSON text, as the sealer can select it from the outbox
 *    (`json_agg(o ORDER BY seq)::text`) — (1) in-line `sealBatch(prev, JSON.parse(text), sealedAt)`;
 *    (2) `pool.sealJson(prev, text, sealedAt)`.
 * In-line runs organization after organization on this thread; the pool runs the organizations
 * concurrently, each keeping one batch in flight (a batch needs the previous batch's head), as
 * the sealer does. Prints events/s and per-core efficiency = pool / (in-line × threads).
 *
 * The yardstick, measured in the same rounds: the machine's own per-core scaling for a pure CPU
 * task on the same pool (registered as a task beside the chain's: same threads, same task count and
 * size, one task in flight per organization): SHA-256 of a fixed 4 KiB buffer (`bench/sha256-task.mjs`), each task
 * sized to take as long in-line as one in-line batch. Per-core scaling = pool / (in-line × threads).
 * Target: hash-pool efficiency ÷ the machine's scaling ≥ 0.90 (both printed), so a busy or
 * throttled machine does not read as a slow pool. Best of 3 interleaved rounds after a warm-up
 * (fewer past a 35 s deadline); the load average is printed too.
 *
 * Run: node --import tsx bench/audit-hash.ts [records=200000] [threads=2]
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import type { AuditRecordInput } from '../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, sealBatch, type SealBatchResult } from '../core/audit/chain/chain-hash.ts';
import { registerChainTasks } from '../core/audit/chain/chain-tasks.ts';
import { WorkerPool } from '../core/workers/worker-pool.ts';

const TOTAL = Number(process.argv[2] ?? 200_000);
const THREADS = Number(process.argv[3] ?? 2);
const ORGS = 4;
const BATCH = 500;
const ROUNDS = 3;
// Extra rounds are skipped past this point, so a loaded machine still finishes in about a minute.
const DEADLINE = performance.now() + 35_000;
const SEALED_AT = '2026-10-16T09:00:00.000Z';

function makeInput(): AuditRecordInput[][][] {
  const orgs: AuditRecordInput[][][] = [];
  const start = Date.UTC(2026, 9, 16);
  for (let o = 0; o < ORGS; o++) {
    const orgId = randomUUID();
    const batches: AuditRecordInput[][] = [];
    const perOrg = TOTAL / ORGS;
    for (let seq = 1; seq <= perOrg; seq++) {
      if ((seq - 1) % BATCH === 0) batches.push([]);
      const record: AuditRecordInput = {
        id: randomUUID(),
        orgId,
        seq,
        eventType: seq % 7 === 0 ? 'org.member.invited' : 'auth.login.succeeded',
        occurredAt: new Date(start + seq * 37).toISOString(),
        actor: { type: seq % 5 === 0 ? 'apiKey' : 'account', id: randomUUID() },
        businessData: {
          ip: `10.${o}.${(seq >> 8) & 255}.${seq & 255}`,
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36',
          method: 'passkey',
          outcome: { ok: true, latencyMs: seq % 400 },
          ...(seq % 3 === 0 ? { _humanSeal: { credentialId: `cred_${seq}`, userId: randomUUID() } } : {}),
        },
      };
      if (seq % 4 === 0) record.appGroupId = `appgroup_${o}`;
      batches[batches.length - 1].push(record);
    }
    orgs.push(batches);
  }
  return orgs;
}

type Seal = (prevHash: string, batch: AuditRecordInput[], text: string) => SealBatchResult | Promise<SealBatchResult>;

async function run(input: AuditRecordInput[][][], texts: string[][], seal: Seal, concurrent: boolean): Promise<string[]> {
  const org = async (o: number) => {
    let prev = GENESIS_HASH;
    for (let b = 0; b < input[o].length; b++) prev = (await seal(prev, input[o][b], texts[o][b])).head.chainHash;
    return prev;
  };
  if (concurrent) return Promise.all(input.map((_, o) => org(o)));
  const heads: string[] = [];
  for (let o = 0; o < input.length; o++) heads.push(await org(o));
  return heads;
}

async function timed(input: AuditRecordInput[][][], texts: string[][], seal: Seal, concurrent: boolean) {
  const t = performance.now();
  const heads = await run(input, texts, seal, concurrent);
  return { ms: performance.now() - t, heads };
}

const input = makeInput();
const texts = input.map((batches) => batches.map((batch) => JSON.stringify(batch)));
console.log(`audit-hash bench: ${TOTAL} records, ${ORGS} organizations, batches of ${BATCH}, pool ${THREADS} threads, ` +
  `${availableParallelism()} CPUs, load ${loadavg()[0].toFixed(2)}, node ${process.version}, best of up to ${ROUNDS} rounds`);

const workers = new WorkerPool({ maxThreads: THREADS });
const pool = registerChainTasks(workers);
// The yardstick: the same pool running a pure CPU task (see the header).
const CPU_TASK = new URL('./sha256-task.mjs', import.meta.url);
const { default: sha256Rounds } = (await import(CPU_TASK.href)) as { default: (rounds: number) => string };
const cpuTask = workers.register<typeof sha256Rounds>('bench.sha256', CPU_TASK);
const tasksPerOrg = input[0].length;
/** Runs ORGS × tasksPerOrg tasks of `rounds`: in-line one after another, or one in flight per organization. */
async function cpuRun(rounds: number, pooled: boolean): Promise<number> {
  const t = performance.now();
  const lane = async () => { for (let b = 0; b < tasksPerOrg; b++) await (pooled ? cpuTask.run(rounds) : sha256Rounds(rounds)); };
  if (pooled) await Promise.all(Array.from({ length: ORGS }, lane));
  else for (let o = 0; o < ORGS; o++) await lane();
  return performance.now() - t;
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(9);
const scenarios: [string, Seal, Seal][] = [
  ['A objects', (p, batch) => sealBatch(p, batch, SEALED_AT), (p, batch) => pool.sealJson(p, JSON.stringify(batch), SEALED_AT)],
  ['B JSON text', (p, _b, text) => sealBatch(p, JSON.parse(text) as AuditRecordInput[], SEALED_AT), (p, _b, text) => pool.sealJson(p, text, SEALED_AT)],
];
// Rounds interleave in-line and pool runs, so a load change on the machine hits both alike.
const best = scenarios.map(() => ({ inline: Infinity, pool: Infinity, same: true }));
for (const [, inlineSeal, poolSeal] of scenarios) {
  await run(input.map((b) => b.slice(0, 4)), texts.map((t) => t.slice(0, 4)), inlineSeal, false); // warm-up
  await run(input.map((b) => b.slice(0, 4)), texts.map((t) => t.slice(0, 4)), poolSeal, true);
}
// Size one CPU task like one in-line batch (scenario A): time 2,000 rounds in-line, scale.
sha256Rounds(2000);
const t0 = performance.now();
sha256Rounds(2000);
const roundMs = (performance.now() - t0) / 2000;
const batchMs = (await timed(input.map((b) => b.slice(0, 20)), texts.map((t) => t.slice(0, 20)), scenarios[0][1], false)).ms / (ORGS * 20);
const cpuRounds = Math.max(1, Math.round(batchMs / roundMs));
await cpuRun(cpuRounds, true); // warm-up: start the threads
const cpuBest = { inline: Infinity, pool: Infinity };
let rounds = 0;
for (; rounds < ROUNDS && (rounds === 0 || performance.now() < DEADLINE); rounds++) {
  cpuBest.inline = Math.min(cpuBest.inline, await cpuRun(cpuRounds, false));
  cpuBest.pool = Math.min(cpuBest.pool, await cpuRun(cpuRounds, true));
  for (const [i, [, inlineSeal, poolSeal]] of scenarios.entries()) {
    const inline = await timed(input, texts, inlineSeal, false);
    const pooled = await timed(input, texts, poolSeal, true);
    best[i].inline = Math.min(best[i].inline, inline.ms);
    best[i].pool = Math.min(best[i].pool, pooled.ms);
    best[i].same &&= JSON.stringify(inline.heads) === JSON.stringify(pooled.heads);
  }
}
const scaling = cpuBest.inline / (cpuBest.pool * THREADS);
console.log(`SHA-256     in-line 1 thread: ${cpuBest.inline.toFixed(0)} ms | pool ${THREADS} threads: ${cpuBest.pool.toFixed(0)} ms ` +
  `(${ORGS * tasksPerOrg} tasks of ${cpuRounds} × SHA-256(4 KiB)) | machine per-core scaling ${scaling.toFixed(2)}`);
for (const [i, [name]] of scenarios.entries()) {
  const inlineRate = TOTAL / (best[i].inline / 1000);
  const poolRate = TOTAL / (best[i].pool / 1000);
  const efficiency = poolRate / (inlineRate * THREADS);
  console.log(`${name.padEnd(11)} in-line 1 thread: ${fmt(inlineRate)} events/s (${best[i].inline.toFixed(0)} ms) | ` +
    `pool ${THREADS} threads: ${fmt(poolRate)} events/s (${best[i].pool.toFixed(0)} ms) | speed-up ${(poolRate / inlineRate).toFixed(2)}x | ` +
    `per-core efficiency ${efficiency.toFixed(2)} ÷ machine scaling ${scaling.toFixed(2)} = ${(efficiency / scaling).toFixed(2)} (target >= 0.90) ${efficiency / scaling >= 0.9 ? 'met' : 'NOT MET'}`);
}
await workers.close();
console.log(`rounds: ${rounds}; same chain heads in-line and pool: ${best.every((b) => b.same)}; load now ${loadavg()[0].toFixed(2)}`);
