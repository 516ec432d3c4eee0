/**
 * Benchmark of file-box uploads: `--files` files (default 200) of `--mib` MiB (default 5),
 * `--inflight` at a time (default 20), sent as multipart to `POST /api/public/v1/files`, side by
 * side with raw `PutObject`s of the same bytes to the same S3-compatible server. Aerie stores them
 * with the S3 driver (on that server) and, in a second run, with the embedded `file` driver; each
 * driver runs in a fresh process (`--driver s3|file` runs one), so neither inherits the other's memory.
 *
 * Measured, in one run:
 * A. raw: the SDK's `PutObject` (S3Client, SigV4), each body the same in-memory buffer, no Aerie.
 *    It runs in this process: the SDK here is the application that stores the bytes. Its client is
 *    set as Aerie's is (`requestChecksumCalculation: 'WHEN_REQUIRED'`): both send the SigV4 SHA-256
 *    of the body and no CRC32 (the SDK's default adds one, ~0.26 ms of CPU per MiB). Each PutObject
 *    has a key of its own (`raw/{uuid}`), as each of Aerie's uploads is a new object: overwriting
 *    the same 200 keys every round (as this bench did until 2026-11-27) made the S3 server truncate
 *    the old files first, and raw rounds ~10 % slower than new objects are.
 * B. Aerie: the same uploads through the API (busboy → SHA-256 and size count → the blob driver;
 *    then the quota reservation, the row and the audit event in one transaction). Aerie
 *    runs in this process, as the raw SDK does; the HTTP client that sends it the files (undici, from
 *    one shared buffer, so it adds no memory per file) runs in a child process. Why: a real client is
 *    on another machine, so its sending costs the server nothing, while in this process it took
 *    ~0.5 ms of CPU per MiB (measured) from Aerie's one JavaScript thread — a cost the raw side,
 *    whose only client is the SDK, never pays. Both sides pay the S3 server, a second child, alike.
 * A and B alternate for `--rounds` rounds (default 3), so both see the same load on a shared machine;
 * the figures are the medians. One unmeasured round of each comes first: a running server is warm,
 * and profiles of a first B round showed a third of Aerie's CPU time in background threads
 * compiling (TurboFan for the upload path's JavaScript, PGlite's WebAssembly tiering up).
 * Printed too: the CPU time per MiB of each process (all its threads: GC and compilers included)
 * in the median rounds. Unlike the wall-clock figures it barely depends on what else the machine
 * runs; when the cores are saturated, the ratio of the two sides' totals is the throughput ratio.
 * Memory: this process's resident set (Aerie, its database and its S3 client) is sampled every
 * 20 ms during the B rounds (the warm-up round too). Between rounds, never during one, the bench
 * runs a full collection (`gc()`, exposed at start-up through `v8.setFlagsFromString`), so every
 * round, raw or Aerie, starts from what is live. Printed:
 * 1. the peak of all B rounds, and its growth from before the first upload (the server up, signed
 *    in, nothing sent yet: what uploads cost, JIT and the database's growth under load included) and
 *    from after the first `--inflight` uploads; the warm-up round's peak alone; the growth at the
 *    peak by kind (V8 heap, Buffers, the rest);
 * 2. per round, the peak's growth over the RSS after the full collection just before that round,
 *    by kind for the largest. This is the figure that answers "the stream is not buffered": a round
 *    moves `--files` × `--mib` MiB, and bodies held in memory would show here as Buffers growing by
 *    about `--inflight` × `--mib` MiB (100 MiB), whatever garbage earlier rounds left;
 * 3. after a last full collection: the RSS and the V8 heap in use, against before the first upload
 *    (what uploads left behind for good, as opposed to garbage not yet collected).
 * The full collections between rounds are not neutral: V8 sizes its heap limits from what is live
 * after a full collection, as a long-running server does after its first one. Without them, the
 * limits that start-up left (migrations, module loading) let the Aerie rounds run with no full
 * collection at all while the old generation piled up garbage (~150 MiB over all rounds, gone at the
 * first collection); with them and plain `node`, the Aerie rounds ran dozens of full collections
 * each (see "V8 flags" below), which the GC line and Aerie's CPU per MiB count.
 * `--no-gc-between-rounds` runs the first and last collections only, for that comparison.
 * Also printed: this process's garbage collections in the median rounds.
 * Targets (S3 driver): B ≥ 0.8 × A (MiB/s); RSS growth from before the first upload < 100 MB.
 *
 * V8 flags: run it with those of Aerie's start command (`npm start`, docs/storage.md "Memory"), as
 * the figures in docs/storage.md were: `--initial-old-space-size=192`. Without it, V8 sizes the old
 * generation from what is live after a full collection (~82 MB) with ~25–35 MB of slack, which the
 * Buffers in flight and the objects promoted during uploads use up at once: dozens of full collections
 * per round. Raw and Aerie share the process, so both get the flags. The first line printed names them.
 * Run: node --initial-old-space-size=192 --import tsx bench/files.ts (embedded PGlite), or against a PostgreSQL server:
 *   eval "$(bash .ci/pg-server.sh)"; node --initial-old-space-size=192 --import tsx bench/files.ts; bash .ci/pg-server.sh stop $PGTMP
 * Options: `--files N`, `--mib N`, `--inflight N`, `--rounds N`, `--driver s3|file` (default: both, one after the other),
 * `--no-gc-between-rounds`.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

const BUCKET = 'aerie-bench';
setFlagsFromString('--expose-gc');
/** A full (mark-compact) collection of this process's heap (as `node --expose-gc` would allow). */
const forceGc = runInNewContext('gc') as () => void;
/** The collection between rounds (never during one); `--no-gc-between-rounds` leaves V8 alone until the end. */
const gcBetweenRounds = !process.argv.includes('--no-gc-between-rounds');
const fullGc = gcBetweenRounds ? forceGc : () => undefined;
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
/** CPU seconds (user + system) this process has used. */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** What the client child is told: the upload target, then how many files to send (answering seconds and CPU seconds). */
type ClientMessage = { url: string; key: string; payload: Uint8Array; inflight: number } | { files: number };

if (process.argv[2] === '--s3') {
  // Child mode: the S3-compatible server (it checks SigV4 signatures), answering its port, then its CPU time when asked.
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (o: object) => { run(): Promise<{ port: number }> };
  const { port } = await new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: process.argv[3], configureBuckets: [{ name: BUCKET }] }).run();
  process.on('message', () => process.send!({ cpu: cpuSeconds() }));
  process.send!({ port });
} else if (process.argv[2] === '--client') {
  await client();
} else if (process.argv.includes('--driver')) {
  await main(process.argv[process.argv.indexOf('--driver') + 1] === 'file' ? 'file' : 's3');
} else {
  // Each driver in a fresh process: RSS hardly shrinks, so a second driver in this one would start above its own baseline.
  for (const driver of ['s3', 'file']) {
    const run = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--driver', driver], { execArgv: process.execArgv });
    const code = await new Promise<number | null>((done) => run.once('exit', done));
    if (code !== 0) process.exit(code ?? 1);
  }
}

/** Runs `task(i)` for i in [0, n) with at most `inflight` at once; answers the seconds it took. */
async function timed(n: number, inflight: number, task: (i: number) => Promise<void>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: inflight }, async () => {
    while (next < n) await task(next++);
  }));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Child mode: the upload client of B (undici, multipart from one shared buffer). */
async function client(): Promise<void> {
  const { Agent, request } = await import('undici');
  let send: (() => Promise<void>) | undefined;
  let inflight = 1;
  process.on('message', (msg: ClientMessage) => void (async () => {
    if ('url' in msg) {
      const payload = Buffer.from(msg.payload.buffer, msg.payload.byteOffset, msg.payload.byteLength);
      const boundary = 'aerie-bench-boundary';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      inflight = msg.inflight;
      const agent = new Agent({ connections: inflight });
      send = async () => {
        const res = await request(`${msg.url}/api/public/v1/files`, {
          method: 'POST', dispatcher: agent, body: Readable.from([head, payload, tail]),
          headers: { 'x-api-key': msg.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + payload.length + tail.length) },
        });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${text}`);
      };
      process.send!({ ready: true });
      return;
    }
    const cpu = cpuSeconds();
    const seconds = await timed(msg.files, inflight, send!);
    process.send!({ seconds, cpu: cpuSeconds() - cpu });
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  }));
}

/** The next message `child` sends. */
function reply<T>(child: ChildProcess, message?: unknown): Promise<T> {
  const answer = new Promise<T>((ok) => child.once('message', ok as never));
  if (message !== undefined) child.send(message as never);
  return answer;
}

async function main(driver: 's3' | 'file'): Promise<void> {
  const { TestAerie } = await import('../test/helpers/harness.ts');
  const { createKey } = await import('../test/helpers/api-keys.ts');
  const { signInWithOrg } = await import('../test/helpers/orgs.ts');
  const files = arg('files', 200);
  const size = arg('mib', 5) * 1024 * 1024;
  const inflight = arg('inflight', 20);
  const dir = mkdtempSync(join(tmpdir(), 'aerie-bench-s3-'));
  const self = fileURLToPath(import.meta.url);
  const s3server = fork(self, ['--s3', dir], { execArgv: ['--import', 'tsx'] });
  const { port } = await reply<{ port: number }>(s3server);
  const uploader = fork(self, ['--client'], { execArgv: ['--import', 'tsx'], serialization: 'advanced' });
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const payload = randomBytes(size);
  const mib = (files * size) / 2 ** 20;

  const rounds = arg('rounds', 3);
  // As Aerie's S3 client does: the SigV4 payload hash covers the body, no CRC32 where S3 does not require one.
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
  const raw = () => timed(files, inflight, async (i) => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `raw/${randomUUID()}`, Body: payload, ContentLength: size, ContentType: 'application/octet-stream' }));
  });

  const aerie = await TestAerie.start({
    env: driver === 's3'
      ? { AERIE_BLOB_DRIVER: 's3', AERIE_S3_BUCKET: BUCKET, AERIE_S3_ENDPOINT: endpoint, AERIE_S3_REGION: 'us-east-1', AERIE_S3_FORCE_PATH_STYLE: 'true' }
      : { AERIE_BLOB_DRIVER: 'file' },
  });
  const org = await signInWithOrg(aerie, 'bench@files.test', 'bench');
  await aerie.sql("update orgs.organizations set plan_key = 'Enterprise' where id = ?", [org.id]);
  const key = (await createKey(aerie, org)).value;
  await reply(uploader, { url: aerie.url, key, payload, inflight } satisfies ClientMessage);
  const send = (n: number) => reply<{ seconds: number; cpu: number }>(uploader, { files: n } satisfies ClientMessage);
  const s3cpu = async () => (await reply<{ cpu: number }>(s3server, 'cpu')).cpu;

  forceGc();
  const before = process.memoryUsage();
  const beforeUploads = before.rss;
  let peak = beforeUploads;
  let atPeak = before;
  /** Per B round: the RSS after a full collection just before it, and its own peak (with `memoryUsage()` at both). */
  type RoundMemory = { base: NodeJS.MemoryUsage; peak: NodeJS.MemoryUsage };
  const roundMemory: RoundMemory[] = [];
  // Call fullGc() before (outside) each measured round: between rounds only, never while uploads run.
  const sampling = async <T>(task: () => Promise<T>): Promise<T> => {
    const round: RoundMemory = { base: process.memoryUsage(), peak: process.memoryUsage() };
    const sampler = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > round.peak.rss) round.peak = process.memoryUsage();
      if (rss > peak) [peak, atPeak] = [rss, round.peak];
    }, 20);
    try {
      return await task();
    } finally {
      clearInterval(sampler);
      roundMemory.push(round);
    }
  };
  await sampling(() => send(inflight)); // first connections and transactions
  roundMemory.length = 0;
  fullGc();
  const afterFirst = process.memoryUsage.rss();
  // Warm-up, one unmeasured round of each (its RSS counts): the B path runs far more JavaScript,
  // and PGlite's WebAssembly tiers up, on background threads, for ~10 s of uploads.
  await sampling(() => send(files));
  const warmPeak = peak;
  fullGc();
  await raw();
  // Garbage collections in this process, by kind (full = mark-compact), counted per round.
  const gcs = { full: 0, young: 0, ms: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) gcs.full++;
      else gcs.young++;
      gcs.ms += entry.duration;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const gcSince = (before: typeof gcs) => ({ full: gcs.full - before.full, young: gcs.young - before.young, ms: gcs.ms - before.ms });
  type Round = { seconds: number; cpu: number; s3: number; client?: number; gc: typeof gcs };
  const rawRuns: Round[] = [];
  const aerieRuns: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    fullGc();
    // The observer hears of a collection a tick after it: let the one just forced be counted before counting starts.
    await new Promise((ok) => setImmediate(ok));
    let [cpu, s3Before, gcBefore] = [cpuSeconds(), await s3cpu(), { ...gcs }];
    const rawSeconds = await raw();
    rawRuns.push({ seconds: rawSeconds, cpu: cpuSeconds() - cpu, s3: (await s3cpu()) - s3Before, gc: gcSince(gcBefore) });
    fullGc();
    await new Promise((ok) => setImmediate(ok));
    [cpu, s3Before, gcBefore] = [cpuSeconds(), await s3cpu(), { ...gcs }];
    const sent = await sampling(() => send(files));
    aerieRuns.push({ seconds: sent.seconds, cpu: cpuSeconds() - cpu, s3: (await s3cpu()) - s3Before, client: sent.cpu, gc: gcSince(gcBefore) });
  }
  const median = (xs: Round[]) => [...xs].sort((a, b) => a.seconds - b.seconds)[Math.floor(xs.length / 2)]!;
  const rawMedian = median(rawRuns);
  const aerieMedian = median(aerieRuns);

  const row = (label: string, seconds: number) => `${label.padEnd(28)} ${seconds.toFixed(2).padStart(7)} s  ${(mib / seconds).toFixed(1).padStart(7)} MiB/s  ${(files / seconds).toFixed(1).padStart(6)} files/s`;
  const perMib = (cpu: number) => `${((cpu * 1000) / mib).toFixed(2)} ms`;
  const gcLine = ({ gc }: Round) => `${gc.full} full + ${gc.young} young GCs (${gc.ms.toFixed(0)} ms paused)`;
  console.log(`\nnode flags: ${process.execArgv.filter((flag) => flag.startsWith('--') && flag !== '--import').join(' ') || '(none)'}`);
  console.log(`${driver} driver: ${files} × ${size / 2 ** 20} MiB, ${inflight} in flight, raw PutObject to a local @20minutes/s3rver${driver === 's3' ? ' (Aerie stores on it too)' : ''}, median of ${rounds} alternating rounds`);
  console.log(`rounds (raw s / Aerie s): ${rawRuns.map((x, i) => `${x.seconds.toFixed(2)}/${aerieRuns[i]!.seconds.toFixed(2)}`).join(', ')}`);
  console.log(row('raw PutObject', rawMedian.seconds));
  console.log(row('POST /api/public/v1/files', aerieMedian.seconds));
  console.log(`ratio (Aerie / raw):          ${(rawMedian.seconds / aerieMedian.seconds).toFixed(2)}×  (target ≥ 0.8×)`);
  console.log(`CPU per MiB, raw:             SDK ${perMib(rawMedian.cpu)}, S3 server ${perMib(rawMedian.s3)}`);
  console.log(`CPU per MiB, Aerie:           Aerie ${perMib(aerieMedian.cpu)}, S3 server ${perMib(aerieMedian.s3)}, upload client ${perMib(aerieMedian.client!)}`);
  console.log(`GC in this process:           raw ${gcLine(rawMedian)}; Aerie ${gcLine(aerieMedian)}`);
  const mibOf = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const byKind = (from: NodeJS.MemoryUsage, to: NodeJS.MemoryUsage) => {
    const [heap, buffers] = [to.heapTotal - from.heapTotal, to.arrayBuffers - from.arrayBuffers];
    return `V8 heap ${mibOf(heap)}, Buffers ${mibOf(buffers)}, the rest (native: PGlite's WebAssembly memory, code, malloc) ${mibOf(to.rss - from.rss - heap - buffers)}`;
  };
  console.log(`RSS during Aerie's uploads:   peak ${mibOf(peak)}, grown ${mibOf(peak - beforeUploads)} from before the first upload (${mibOf(beforeUploads)}; target < 100 MB), ${mibOf(peak - afterFirst)} from after the first ${inflight}`);
  console.log(`  in the warm-up round alone (before any raw round): peak ${mibOf(warmPeak)}, grown ${mibOf(warmPeak - beforeUploads)} from before the first upload`);
  console.log(`  growth at the peak, by kind: ${byKind(before, atPeak)}`);
  const growth = roundMemory.map((m) => m.peak.rss - m.base.rss);
  const worst = roundMemory[growth.indexOf(Math.max(...growth))]!;
  console.log(`RSS growth within each round over the RSS ${gcBetweenRounds ? 'after a full GC' : '(no GC between rounds)'} just before it (warm-up first): ${growth.map(mibOf).join(', ')}`);
  console.log(`  largest, by kind: ${byKind(worst.base, worst.peak)}; V8 heap in use ${mibOf(worst.base.heapUsed)} → ${mibOf(worst.peak.heapUsed)}`);
  forceGc();
  const after = process.memoryUsage();
  console.log(`after a full GC at the end:   RSS ${mibOf(after.rss)} (${mibOf(after.rss - beforeUploads)} above before the first upload), V8 heap in use ${mibOf(after.heapUsed)} (was ${mibOf(before.heapUsed)}), Buffers ${mibOf(after.arrayBuffers)} (was ${mibOf(before.arrayBuffers)})`);

  gcObserver.disconnect();
  uploader.kill();
  await aerie.close();
  s3server.kill();
  rmSync(dir, { recursive: true, force: true });
}
