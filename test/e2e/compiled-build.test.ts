import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../core/kernel.ts';
import { freePort } from '../helpers/child-process.ts';

const run = promisify(execFile);

/** Paths of the files under `dir`, relative to it, not entering node_modules. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.name === 'node_modules') return [];
    return e.isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

/**
 * The compiled build (`npm run build`, core/cli/build.mjs) into a temporary folder, then its server
 * started as production runs it (`node <out>/core/cli/main.js serve`) on PGlite. The build's
 * node_modules is replaced by links to every package but tsx, so any attempt of the compiled
 * process (or the core.workers threads running its compiled task modules) to load tsx fails instead
 * of passing unnoticed.
 */
// What is tested is the build, not the database: it runs in the embedded pass only (CI runs the
// suite twice, the second time on a PostgreSQL server).
describe.skipIf(!!process.env.TEST_DATABASE_URL)('compiled build: node dist/core/cli/main.js serve, without tsx', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'aerie-build-'));
  const out = join(tmp, 'dist');
  const dataDir = join(tmp, 'data');
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('builds JavaScript only, and serves /healthz, /readyz and real routes', async () => {
    const built = await run(process.execPath, [join(REPO_ROOT, 'core/cli/build.mjs'), '--out', out, '--force'], { cwd: REPO_ROOT });
    expect(built.stdout).toMatch(/^built .*dist\/ \(\d+ files\) in \d+\.\d s\n$/);
    const files = filesUnder(out);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    for (const f of ['core/cli/main.js', 'core/workers/worker.mjs', 'core/audit/chain/seal-batch.task.js', 'core/audit/chain/compact-day.task.js', 'plugins/analytics/rollup-day.task.js', 'plugins/analytics/forensic-day.task.js', 'plugins/oidc/index.js', 'migrations/core/001_seal_challenges.js', 'schemas/config.schema.json', 'plugins/accounts/page/login.js']) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(out, 'plugins/oidc/plugin.json'), 'utf8')).entry).toBe('./index.js');
    expect(readFileSync(join(out, 'core/kernel.js'), 'utf8')).not.toMatch(/from\s+["']\.{1,2}\/[^"']*\.ts["']/);

    // node_modules without tsx (the build linked the repository's, as for any build outside it).
    const modules = join(out, 'node_modules');
    rmSync(modules);
    mkdirSync(modules);
    const real = realpathSync(join(REPO_ROOT, 'node_modules'));
    for (const name of readdirSync(real)) if (name !== 'tsx' && name !== '.bin') symlinkSync(join(real, name), join(modules, name), 'dir');

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(out, 'core/cli/main.js'), 'serve'], {
      cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PORT: String(port), AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'warn', AERIE_BASE_URL: base, DATABASE_URL: '', AERIE_PLUGIN_PATHS: '', AERIE_PLUGINS: '' },
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    // core.workers' bootstrap in the build loads the compiled tasks (registered by their .ts URLs,
    // absent there), while the server boots: one tiny seal per thread, one day file compacted (then
    // verified), and that file rolled up by the analytics plugin's task.
    const warming = run(process.execPath, ['--input-type=module', '-e', `
      const { WorkerPool } = await import(${JSON.stringify(join(out, 'core/workers/worker-pool.js'))});
      const { registerChainTasks, compactDayFile } = await import(${JSON.stringify(join(out, 'core/audit/chain/chain-tasks.js'))});
      const { registerRollupTasks } = await import(${JSON.stringify(join(out, 'plugins/analytics/rollup-tasks.js'))});
      const { verifyDayFile } = await import(${JSON.stringify(join(out, 'core/audit/chain/day-file.js'))});
      const workers = new WorkerPool({ maxThreads: 1 });
      const chain = registerChainTasks(workers);
      const analytics = registerRollupTasks(workers);
      await chain.warm();
      const record = { id: 'r1', orgId: 'o1', seq: 1, eventType: 'a.b', occurredAt: '2026-01-01T00:00:00.000Z', actor: { type: 'system', id: 's' }, businessData: {} };
      const sealedAt = '2026-01-01T01:00:00.000Z';
      const { sealed } = await chain.sealJson('0'.repeat(64), JSON.stringify([record]), sealedAt);
      const file = await compactDayFile(workers, { records: new TextEncoder().encode(JSON.stringify({ ...record, sealedAt, ...sealed[0] })), day: '2026-01-01', checkpoints: [] });
      const report = await verifyDayFile(file.bytes, { keys: [] }, { allowUncoveredTail: true });
      const rolled = await analytics.rollup(file.bytes);
      await workers.close();
      console.log(report.ok && rolled.orgId === 'o1' ? 'warm' : JSON.stringify(report));`], { cwd: tmp });
    expect((await warming).stdout.trim()).toBe('warm');
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null) throw new Error(`the compiled server exited (${child.exitCode}):\n${output}`);
      if ((await fetch(`${base}/healthz`).catch(() => undefined))?.ok) break;
      if (tries > 300) throw new Error(`the compiled server did not start within 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'pglite' });

    const registered = await fetch(`${base}/api/v1/users/registration/email`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'built@example.com', displayName: 'Built' }),
    });
    expect(registered.status).toBe(202);
    expect(readdirSync(join(dataDir, 'outbox')).some((f) => f.endsWith('.eml'))).toBe(true);
    const page = await fetch(`${base}/account/security`); // template and script read from the build's plugins/accounts/page/
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    expect((await fetch(`${base}/api/openapi.json`)).status).toBe(200);
    expect(output).not.toMatch(/"level":(50|60)|tsx/);
  });
});
