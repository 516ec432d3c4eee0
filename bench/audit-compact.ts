/**
 * Benchmark of issue 17: compaction of 1,000,000 sealed audit events into Parquet day files,
 * in-line vs the compaction task on `core.workers`, same input, side by side in one run.
 *
 * Input, built in memory before any timing: `orgs × days` (10 × 10) organization-days of sealed
 * records — 1,000,000 events by default, each day a contiguous run of its organization's chain,
 * sealed in batches of 500 under record hash version 2 (`payloadHashV2`, `linkV2`, the ingestion
 * path), with realistic `businessData` (sign-ins with user agents, page views with referrers and
 * campaigns, member and role changes, paid invoices; 180–470 bytes of JSON) and a signed
 * checkpoint at each day's last record. Input preparation, timed apart: `dayRecordsNdjson` of each
 * day's records (UTF-8 NDJSON, one record's JSON per line) — the bytes the archive
 * (`plugins/audit/day-files.ts`) hands to the compaction task. The pool transfers a task's bytes to
 * its thread (detached in the caller), so the pool modes get copies of each chunk's, made untimed.
 *
 * Timed, on the same bytes, each mode producing every day file:
 * a. in-line on the main thread: `encodeDayFile({records: bytes, …})`, one day after another;
 * b. `compactDayFile` on a `core.workers` pool of 1 thread (`WorkerPool`, the kernel's chain tasks
 *    registered), the days queued at once;
 * c. the same on a pool of N threads (N = threads, default 2), the days queued at once.
 * Per-core efficiency of compaction = rate_c ÷ (N × rate_a) (and ÷ (N × rate_b), the pool against
 * itself with one thread).
 *
 * The yardstick, measured in the same run: the machine's own per-core scaling for a pure CPU task
 * on the same pools (registered beside the chain's tasks: same threads, one task per
 * organization-day, queued the same way): SHA-256 of a fixed 4 KiB buffer (`bench/sha256-task.mjs`), each task sized by CPU
 * time to cost what one in-line day costs. Target: compaction efficiency ÷ machine scaling ≥ 0.9.
 * On a shared machine the load changes by the minute, so the modes are interleaved finely: each
 * chunk of 10 organization-days goes through all six modes back to back, the order rotating from
 * chunk to chunk, and each mode's times are summed over the chunks. Also printed: CPU time per event
 * of every thread (which the load of other processes barely moves: the pool's own cost shows as
 * CPU spent beyond the in-line run's), the in-line runs' CPU outside the main thread (V8's GC
 * helpers; Linux), the day files' total bytes, that pool and in-line bytes are
 * identical, and the process's peak RSS (main thread and workers share one process).
 *
 * Run: node --import tsx bench/audit-compact.ts [events=1000000] [threads=2] [passes=1]
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { generateKeyPair } from 'jose';
import type { AuditRecordInput, JsonValue, SealedAuditRecord } from '../core/audit/chain/audit-record.ts';
import { GENESIS_HASH } from '../core/audit/chain/audit-record.ts';
import { linkV2, payloadHashV2 } from '../core/audit/chain/chain-hash-v2.ts';
import { signCheckpoint } from '../core/audit/chain/checkpoint.ts';
import { compactDayFile, registerChainTasks, type CompactDayTask } from '../core/audit/chain/chain-tasks.ts';
import { dayRecordsNdjson, dayStartMs, encodeDayFile, DAY_MS, utcDay } from '../core/audit/chain/day-file.ts';
import { WorkerPool } from '../core/workers/worker-pool.ts';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const THREADS = Number(process.argv[3] ?? 2);
const PASSES = Number(process.argv[4] ?? 1);
const ORGS = 10;
const DAYS = 10;
const BATCH = 500;
const FIRST_DAY = '2026-11-01';

const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
];
const PAGES = ['/', '/pricing', '/docs/getting-started', '/account/security', '/billing/invoices', '/blog/2026/11/passkeys-everywhere'];

/** One event's type, actor and businessData, varied like a real tenant's mix (seq picks the kind). */
function makeEvent(orgId: string, seq: number, at: number, o: number): AuditRecordInput {
  const kind = seq % 20;
  const ip = `10.${o}.${(seq >> 8) & 255}.${seq & 255}`;
  let eventType: string;
  let businessData: { [key: string]: JsonValue };
  if (kind < 9) {
    eventType = kind === 8 ? 'auth.login.failed' : 'auth.login.succeeded';
    businessData = {
      ip, userAgent: USER_AGENTS[seq % 3], method: seq % 2 ? 'passkey' : 'password', country: ['DE', 'US', 'FR', 'JP'][seq % 4],
      outcome: kind === 8 ? { ok: false, reason: 'invalid_credentials', attempt: (seq % 5) + 1 } : { ok: true, latencyMs: seq % 400 },
      ...(seq % 3 === 0 ? { _humanSeal: { credentialId: `cred_${seq % 997}`, userId: `user_${seq % 3001}` } } : {}),
    };
  } else if (kind < 16) {
    eventType = 'behavior.page.viewed';
    businessData = {
      page: PAGES[seq % PAGES.length], referrer: seq % 2 ? 'https://www.example-search.com/?q=identity+provider' : null, dwellMs: (seq * 37) % 90_000,
      utm: { source: ['newsletter', 'ads', 'partner'][seq % 3], campaign: `q4-${seq % 7}` }, ip, userAgent: USER_AGENTS[seq % 3],
    };
  } else if (kind < 19) {
    eventType = kind === 16 ? 'org.member.invited' : 'org.member.role_changed';
    businessData = {
      email: `person.${seq % 4999}@customer-${o}.example`, roles: { before: ['member'], after: ['member', seq % 2 ? 'billing' : 'admin'] },
      invitedBy: `acc_${seq % 13}`, note: 'Added for the Q4 audit of the finance tenant — naïve café ☃',
    };
  } else {
    eventType = 'payment.invoice.paid';
    businessData = {
      invoiceId: `in_${seq}`, amount: { minor: (seq * 131) % 500_000, currency: 'EUR' }, plan: 'pro', seats: (seq % 40) + 1,
      lines: Array.from({ length: 4 }, (_, i) => ({ sku: `sku_${i}`, description: `Seat licence tier ${i} (annual)`, quantity: i + 1, unitMinor: 1200 * (i + 1) })),
    };
  }
  const event: AuditRecordInput = {
    id: randomUUID(), orgId, seq, eventType, occurredAt: new Date(at - 250).toISOString(),
    actor: { type: seq % 10 === 0 ? 'apiKey' : 'account', id: seq % 10 === 0 ? `ah_live_${o}` : `acc_${seq % 4001}` }, businessData,
  };
  if (seq % 4 === 0) event.appGroupId = `appgroup_${o}`;
  return event;
}

/**
 * The organization-days in the order the archive compacts them, each a sealed, chained run, as the
 * compaction task's input. Each day is stringified as soon as it is built (timed apart, in
 * `stringifyMs`), so the 1,000,000 record objects never live at once.
 */
async function makeInput(): Promise<{ tasks: CompactDayTask[]; events: number; stringifyMs: number }> {
  const { privateKey } = await generateKeyPair('ES256');
  const perDay = Math.floor(TOTAL / (ORGS * DAYS));
  const tasks: CompactDayTask[] = [];
  let stringifyMs = 0;
  for (let o = 0; o < ORGS; o++) {
    const orgId = randomUUID();
    let prev = GENESIS_HASH;
    let seq = 1;
    for (let d = 0; d < DAYS; d++) {
      const start = dayStartMs(FIRST_DAY) + d * DAY_MS;
      const records: SealedAuditRecord[] = [];
      for (let b = 0; b < perDay; b += BATCH) {
        const n = Math.min(BATCH, perDay - b);
        const sealedAt = new Date(start + Math.floor(((b + n) / perDay) * (DAY_MS - 1_000))).toISOString();
        const events = Array.from({ length: n }, (_, i) => makeEvent(orgId, seq + i, Date.parse(sealedAt) - (n - i) * 10, o));
        const hashes = events.map((e) => payloadHashV2(e));
        const links = linkV2(prev, seq, hashes.join(''), sealedAt);
        for (let i = 0; i < n; i++) records.push({ ...events[i], sealedAt, hashVersion: 2, payloadHash: hashes[i], ...links[i] });
        prev = links[n - 1].chainHash;
        seq += n;
      }
      const checkpoints = [await signCheckpoint(records[records.length - 1], privateKey, 'audit-bench-1')];
      const t = performance.now();
      tasks.push({ records: dayRecordsNdjson(records), day: utcDay(start), checkpoints });
      stringifyMs += performance.now() - t;
    }
  }
  return { tasks, events: perDay * ORGS * DAYS, stringifyMs };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MiB`;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const peakRss = () => mb(process.resourceUsage().maxRSS * 1024);
/** CPU time of the main thread alone so far, in ms (Linux: /proc/self/task/<pid>/stat utime + stime; NaN elsewhere). */
const mainThreadCpuMs = () => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return NaN;
  }
};
/** CPU time of this process (every thread: main, workers, GC helpers) since `since`, in ms. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

console.log(`audit-compact bench: ${TOTAL} events, ${ORGS} organizations × ${DAYS} days, pool ${THREADS} threads, ` +
  `${availableParallelism()} CPUs, load ${load()}, node ${process.version}, ${PASSES} pass(es)`);
let t = performance.now();
const { tasks, events, stringifyMs } = await makeInput();
const textBytes = tasks.reduce((n, task) => n + task.records.length, 0);
console.log(`input: ${fmt(events)} sealed events in ${tasks.length} organization-days, built in ${((performance.now() - t) / 1000).toFixed(1)} s; ` +
  `preparation apart from the timings below: dayRecordsNdjson per day ${stringifyMs.toFixed(0)} ms (${fmt(events / (stringifyMs / 1000))} events/s), ` +
  `${mb(textBytes)} of JSON text; peak RSS so far ${peakRss()}`);

const CPU_TASK = new URL('./sha256-task.mjs', import.meta.url);
const { default: sha256Rounds } = (await import(CPU_TASK.href)) as { default: (rounds: number) => string };
/** A `core.workers` pool of `threads` with the chain's tasks (compaction) and the SHA-256 yardstick. */
const workerPool = (threads: number) => {
  const workers = new WorkerPool({ maxThreads: threads });
  registerChainTasks(workers);
  const sha256 = workers.register<typeof sha256Rounds>('bench.sha256', CPU_TASK);
  return { workers, compact: (task: CompactDayTask) => compactDayFile(workers, task), run: (rounds: number) => sha256.run(rounds) };
};
const pool1 = workerPool(1);
const poolN = workerPool(THREADS);
const cpu1 = pool1;
const cpuN = poolN;

// Warm-up: start every pool's threads (the compaction task module loads through tsx) and JIT the encoder.
const few = tasks.slice(0, THREADS * 2);
// The pool transfers a task's records buffer to its thread (detached here): each pool run gets copies, made untimed.
const copies = (chunk: CompactDayTask[]) => chunk.map((task) => ({ ...task, records: task.records.slice() }));
for (const task of few) encodeDayFile(task);
await Promise.all(copies(few).map((task) => pool1.compact(task)));
await Promise.all(copies(few).map((task) => poolN.compact(task)));
await Promise.all(few.map(() => cpu1.run(1000)));
await Promise.all(few.map(() => cpuN.run(1000)));
// Size one SHA-256 task like one in-line day, by CPU time (wall time would carry the load of the moment).
sha256Rounds(2000);
let since = process.cpuUsage();
sha256Rounds(20_000);
const roundCpu = cpuMs(since) / 20_000;
since = process.cpuUsage();
encodeDayFile(tasks[0]);
const cpuRounds = Math.max(1, Math.round(cpuMs(since) / roundCpu));

type Run = (chunk: CompactDayTask[]) => Promise<{ sha: string[]; bytes: number } | void>;
const files = (out: Array<{ sha256: string; bytes: Uint8Array }>) => ({ sha: out.map((f) => f.sha256), bytes: out.reduce((n, f) => n + f.bytes.byteLength, 0) });
const modes: Array<{ name: string; run: Run }> = [
  { name: 'compaction in-line', run: async (chunk) => files(chunk.map((task) => encodeDayFile(task))) },
  { name: 'compaction pool 1', run: async (chunk) => files(await Promise.all(chunk.map((task) => pool1.compact(task)))) },
  { name: `compaction pool ${THREADS}`, run: async (chunk) => files(await Promise.all(chunk.map((task) => poolN.compact(task)))) },
  { name: 'SHA-256 in-line', run: async (chunk) => { for (let i = 0; i < chunk.length; i++) sha256Rounds(cpuRounds); } },
  { name: 'SHA-256 pool 1', run: async (chunk) => { await Promise.all(chunk.map(() => cpu1.run(cpuRounds))); } },
  { name: `SHA-256 pool ${THREADS}`, run: async (chunk) => { await Promise.all(chunk.map(() => cpuN.run(cpuRounds))); } },
];
const total = modes.map(() => ({ ms: 0, cpu: 0, main: 0 }));
const shas: string[][] = [[], [], []];
let fileBytes = 0;
// Fine interleaving: each chunk of 10 organization-days runs through all six modes back to back (the
// order rotating from chunk to chunk), so a change of load on the shared machine hits every mode alike.
const CHUNK = 10;
for (let pass = 0; pass < PASSES; pass++) {
  for (let c = 0, k = 0; c < tasks.length; c += CHUNK, k++) {
    const chunk = tasks.slice(c, c + CHUNK);
    for (let j = 0; j < modes.length; j++) {
      const m = (j + k) % modes.length;
      const input = m === 1 || m === 2 ? copies(chunk) : chunk;
      since = process.cpuUsage();
      const main = mainThreadCpuMs();
      t = performance.now();
      const out = await modes[m].run(input);
      total[m].ms += performance.now() - t;
      total[m].cpu += cpuMs(since);
      total[m].main += mainThreadCpuMs() - main;
      if (pass === 0 && out) {
        shas[m].push(...out.sha);
        if (m === 0) fileBytes += out.bytes;
      }
    }
  }
  console.log(`  pass ${pass + 1} done, load ${load()}`);
}
await Promise.all([pool1.workers.close(), poolN.workers.close()]);

const [inline, p1, pN, shaInline, sha1, shaN] = total;
const done = events * PASSES;
const rate = (ms: number) => done / (ms / 1000);
const scaling = shaInline.ms / (THREADS * shaN.ms);
const scaling1 = sha1.ms / (THREADS * shaN.ms);
const efficiency = inline.ms / (THREADS * pN.ms);
const efficiency1 = p1.ms / (THREADS * pN.ms);
const us = (ms: number) => `${((ms * 1000) / done).toFixed(1)} µs`;
const verdict = (q: number) => `${q.toFixed(2)} (target >= 0.90) ${q >= 0.9 ? 'met' : 'NOT MET'}`;
console.log(`SHA-256    in-line ${shaInline.ms.toFixed(0)} ms | pool 1 thread ${sha1.ms.toFixed(0)} ms | pool ${THREADS} threads ${shaN.ms.toFixed(0)} ms ` +
  `(${tasks.length * PASSES} tasks of ${cpuRounds} × SHA-256(4 KiB)) | machine per-core scaling ${scaling.toFixed(2)} (vs pool 1: ${scaling1.toFixed(2)})`);
console.log(`compaction in-line ${fmt(rate(inline.ms))} events/s (${inline.ms.toFixed(0)} ms) | pool 1 thread ${fmt(rate(p1.ms))} events/s (${p1.ms.toFixed(0)} ms) | ` +
  `pool ${THREADS} threads ${fmt(rate(pN.ms))} events/s (${pN.ms.toFixed(0)} ms) | speed-up ${(inline.ms / pN.ms).toFixed(2)}x`);
console.log(`per-core efficiency vs in-line: ${efficiency.toFixed(2)} ÷ machine scaling ${scaling.toFixed(2)} = ${verdict(efficiency / scaling)}`);
console.log(`per-core efficiency vs pool 1:  ${efficiency1.toFixed(2)} ÷ machine scaling ${scaling1.toFixed(2)} = ${verdict(efficiency1 / scaling1)}`);
console.log(`CPU time (all threads), per event: compaction in-line ${us(inline.cpu)} | pool 1 ${us(p1.cpu)} | pool ${THREADS} ${us(pN.cpu)} ` +
  `(pool ${THREADS} ÷ in-line ${(pN.cpu / inline.cpu).toFixed(2)}); same for SHA-256: pool ${THREADS} ÷ in-line ${(shaN.cpu / shaInline.cpu).toFixed(2)}`);
const helpers = (mode: { cpu: number; main: number }) => `${(100 * (mode.cpu / mode.main - 1)).toFixed(0)} %`;
console.log(`in-line runs are not one core: CPU of the other threads (V8's GC helpers) on top of the main thread's: compaction ${helpers(inline)}, ` +
  `SHA-256 ${helpers(shaInline)}`);
const same = shas[1].join() === shas[0].join() && shas[2].join() === shas[0].join();
console.log(`day files: ${tasks.length}, ${mb(fileBytes)} (${(fileBytes / events).toFixed(0)} bytes/event, ${(textBytes / fileBytes).toFixed(1)}x smaller than the JSON); ` +
  `same bytes in-line and pool: ${same}; peak RSS ${peakRss()}; load now ${load()}`);
