/**
 * CPU an idle Aerie spends: boots the kernel with every plugin on the embedded database (or the
 * PostgreSQL server of `DATABASE_URL`), listens, waits 5 s for start-up work to settle, then reads
 * `process.cpuUsage()` (all threads) over `--seconds` seconds (default 30) with no request sent,
 * and prints it as a share of one core. What it mostly counts: the background pollers (the audit
 * sealer, the webhook dispatcher, jobs, chain followers). Run before and after a change, alternating.
 *
 * Run: node --import tsx bench/idle-cpu.ts [--seconds N]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../core/kernel.ts';

const i = process.argv.indexOf('--seconds');
const seconds = i > 0 ? Number(process.argv[i + 1]) : 30;
const dataDir = mkdtempSync(join(tmpdir(), 'aerie-idle-'));
const env: Record<string, string> = { AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'warn' };
if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
const kernel = await Kernel.boot({ env, cwd: dataDir });
try {
  await kernel.listen(0, '127.0.0.1');
  await new Promise((r) => setTimeout(r, 5000));
  const before = process.cpuUsage();
  const start = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  const wall = performance.now() - start;
  console.log(`idle ${env.DATABASE_URL ? 'on a PostgreSQL server' : 'embedded (PGlite)'}: ${ms.toFixed(0)} ms of CPU in ${(wall / 1000).toFixed(1)} s = ${((ms / wall) * 100).toFixed(2)} % of a core`);
} finally {
  await kernel.close();
  rmSync(dataDir, { recursive: true, force: true });
}
