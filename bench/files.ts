/**
 * Benchmark of file-box uploads on the S3 driver: `--files` files (default 200) of `--mib` MiB
 * (default 5), `--inflight` at a time (default 20), sent as multipart to `POST /api/public/v1/files`,
 * side by side with raw `PutObject`s of the same bytes to the same S3-compatible server.
 *
 * Measured, in one run:
 * A. raw: the SDK's `PutObject` (S3Client, SigV4), each body the same in-memory buffer, no Aerie.
 * B. Aerie: the same uploads through the API (busboy → SHA-256 and size count → lib-storage →
 *    the server; then the quota reservation, the row and the audit event in one transaction), sent
 *    with undici from one shared buffer, so the client adds no memory per file.
 * A and B alternate for `--rounds` rounds (default 3), so both see the same load on a shared machine;
 * the figures are the medians. Peak RSS growth is this process's resident set during the B rounds
 * above its level just before the first (Aerie, its database client and the upload client run
 * here; the S3 server runs in a child process).
 * Targets: B ≥ 0.8 × A (MiB/s); RSS growth < 100 MB.
 *
 * Run: node --import tsx bench/files.ts (embedded PGlite), or against a PostgreSQL server:
 *   eval "$(bash .ci/pg-server.sh)"; node --import tsx bench/files.ts; bash .ci/pg-server.sh stop $PGTMP
 * Options: `--files N`, `--mib N`, `--inflight N`, `--rounds N`.
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Agent, request } from 'undici';
import { TestAerie } from '../test/helpers/harness.ts';
import { createKey } from '../test/helpers/api-keys.ts';
import { signInWithOrg } from '../test/helpers/orgs.ts';

const BUCKET = 'aerie-bench';
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

// Child mode: the S3-compatible server (it checks SigV4 signatures), answering its port.
if (process.argv[2] === '--s3') {
  const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (o: object) => { run(): Promise<{ port: number }> };
  const { port } = await new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: process.argv[3], configureBuckets: [{ name: BUCKET }] }).run();
  process.send!({ port });
} else {
  await main();
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

async function main(): Promise<void> {
  const files = arg('files', 200);
  const size = arg('mib', 5) * 1024 * 1024;
  const inflight = arg('inflight', 20);
  const dir = mkdtempSync(join(tmpdir(), 'aerie-bench-s3-'));
  const child = fork(fileURLToPath(import.meta.url), ['--s3', dir], { execArgv: ['--import', 'tsx'] });
  const { port } = await new Promise<{ port: number }>((ok) => child.once('message', ok as never));
  const endpoint = `http://127.0.0.1:${port}`;
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const payload = randomBytes(size);
  const mib = (files * size) / 2 ** 20;

  const rounds = arg('rounds', 3);
  const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
  const raw = () => timed(files, inflight, async (i) => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `raw/${i}`, Body: payload, ContentLength: size, ContentType: 'application/octet-stream' }));
  });

  const aerie = await TestAerie.start({
    env: { AERIE_BLOB_DRIVER: 's3', AERIE_S3_BUCKET: BUCKET, AERIE_S3_ENDPOINT: endpoint, AERIE_S3_REGION: 'us-east-1', AERIE_S3_FORCE_PATH_STYLE: 'true' },
  });
  const org = await signInWithOrg(aerie, 'bench@files.test', 'bench');
  await aerie.sql("update orgs.organizations set plan_key = 'Enterprise' where id = ?", [org.id]);
  const key = (await createKey(aerie, org)).value;
  const boundary = 'aerie-bench-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const agent = new Agent({ connections: inflight });
  const send = async () => {
    const res = await request(`${aerie.url}/api/public/v1/files`, {
      method: 'POST', dispatcher: agent, body: Readable.from([head, payload, tail]),
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${text}`);
  };
  await timed(inflight, inflight, send); // warm-up: connections, JIT, first transactions
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const rawRuns: number[] = [];
  const aerieRuns: number[] = [];
  for (let r = 0; r < rounds; r++) {
    rawRuns.push(await raw());
    aerieRuns.push(await timed(files, inflight, send));
  }
  clearInterval(sampler);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rawSeconds = median(rawRuns);
  const aerieSeconds = median(aerieRuns);
  peak = Math.max(peak, process.memoryUsage().rss);

  const row = (label: string, seconds: number) => `${label.padEnd(28)} ${seconds.toFixed(2).padStart(7)} s  ${(mib / seconds).toFixed(1).padStart(7)} MiB/s  ${(files / seconds).toFixed(1).padStart(6)} files/s`;
  console.log(`${files} × ${size / 2 ** 20} MiB, ${inflight} in flight, S3 driver on a local @20minutes/s3rver, median of ${rounds} alternating rounds`);
  console.log(`rounds (raw s / Aerie s): ${rawRuns.map((x, i) => `${x.toFixed(2)}/${aerieRuns[i]!.toFixed(2)}`).join(', ')}`);
  console.log(row('raw PutObject', rawSeconds));
  console.log(row('POST /api/public/v1/files', aerieSeconds));
  console.log(`ratio (Aerie / raw):          ${(rawSeconds / aerieSeconds).toFixed(2)}×  (target ≥ 0.8×)`);
  console.log(`peak RSS growth during Aerie: ${((peak - baseline) / 2 ** 20).toFixed(1)} MiB  (target < 100 MB)`);

  await agent.close();
  await aerie.close();
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}
