#!/usr/bin/env node
// `npm run build`: compiles what the server loads at run time to JavaScript under dist/, so that a
// production process runs without tsx. Plain ESM (no TypeScript) so that it runs before anything
// is compiled.
//
// What is built: the command line (core/cli/main.ts), every built-in plugin's entry (its manifest's
// `entry`), every built-in migration, the worker task modules (every `*.task.ts` under core/ and
// plugins/: core.workers loads them by URL, nothing imports them), and every module they import
// (followed through esbuild's resolver, so core/, plugins/ and the appliance modules the plugins
// use), one output file per source file (esbuild, not bundled), `.ts` imports rewritten to `.js`.
// Beside them: the plugins' non-TypeScript files (manifests with `entry` rewritten to `.js`,
// config schemas, templates, page assets), schemas/, core.workers' bootstrap
// (core/workers/worker.mjs), and a package.json with the version. The layout mirrors the
// repository, so `dist/` is its own `REPO_ROOT`.
//
// The build is skipped when nothing it reads changed since the last one (a fingerprint of the
// sources' paths, sizes and modification times), and a new build replaces the old folder in one
// rename, so processes started from it meanwhile never see it half written.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** Folders whose files the build reads (the fingerprint covers all of them). */
const SOURCE_DIRS = ['core', 'plugins', 'migrations', 'appliance', 'schemas'];
const SOURCE_FILES = ['package.json', 'tsconfig.json'];
/** Written into the output folder; marks it as a build (only such a folder is ever replaced). */
const STAMP = '.aerie-build.json';
const MIGRATION_FILE = /^\d+[-_].+\.(ts|js|mjs)$/;
/** A worker task module (core.workers), loaded by URL in a thread: an entry of its own. */
const TASK_FILE = /\.task\.ts$/;
/** The one worker bootstrap, copied as it is (plain ESM). */
const WORKER_BOOTSTRAP = 'core/workers/worker.mjs';

/**
 * Builds the compiled server into `out`.
 * @param {{ out?: string, force?: boolean, root?: string }} [options] - `out`: the output folder
 *   (default `<repository>/dist`); `force`: build even when the sources did not change;
 *   `root`: the repository to build (default: the one this file is in).
 * @returns {Promise<{ out: string, skipped: boolean, files: number, ms: number }>} the output folder
 *   (absolute), whether the previous build was kept, how many files the build holds (compiled and
 *   copied) and the time taken in milliseconds.
 * @throws Error when esbuild reports an error, when a compiled module imports a relative file the
 *   build does not hold, or when `out` exists and is neither empty nor a previous build.
 */
export async function buildServer(options = {}) {
  const started = performance.now();
  const root = resolve(options.root ?? ROOT);
  const out = resolve(options.out ?? join(root, 'dist'));
  const fingerprint = sourceFingerprint(root);
  const previous = readStamp(out);
  if (!options.force && previous?.fingerprint === fingerprint && existsSync(join(out, 'core/cli/main.js'))) {
    return { out, skipped: true, files: previous.files, ms: performance.now() - started };
  }
  if (existsSync(out) && !previous && readdirSync(out).length > 0) {
    throw new Error(`${out} exists and is not an Aerie build: refusing to replace it`);
  }

  const staging = `${out}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const compiled = await compile(root, staging);
    const copied = copyAssets(root, staging);
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    // dist/ is REPO_ROOT for the compiled code: the kernel reads its version here.
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'aerie', version, private: true, type: 'module' }, null, 2)}\n`);
    const files = compiled + copied + 1;
    // The stamp's `source` (the repository, relative to the build) lets a TypeScript partner plugin
    // that imports the kernel's sources be pointed at the compiled modules (core/cli/typescript-plugins.ts).
    writeFileSync(join(staging, STAMP), `${JSON.stringify({ fingerprint, files, source: relative(out, root) || '.' }, null, 2)}\n`);
    linkNodeModules(root, out, staging);
    if (!options.force && readStamp(out)?.fingerprint === fingerprint) {
      // A concurrent build (parallel `npm start`s) finished the same sources first: keep it, so a
      // process already started from it is not swapped under.
      rmSync(staging, { recursive: true, force: true });
      return { out, skipped: true, files, ms: performance.now() - started };
    }
    swapIn(staging, out);
    return { out, skipped: false, files, ms: performance.now() - started };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Compiles the entry points and, round after round, every relative `.ts` module they import. */
async function compile(root, outdir) {
  const tasks = ['core', 'plugins'].flatMap((d) => walk(join(root, d))).filter((f) => TASK_FILE.test(f));
  const entries = new Set([join(root, 'core/cli/main.ts'), ...tasks]);
  for (const dir of childDirs(join(root, 'plugins'))) {
    const manifest = join(dir, 'plugin.json');
    if (existsSync(manifest)) entries.add(resolve(dir, JSON.parse(readFileSync(manifest, 'utf8')).entry));
  }
  for (const dir of childDirs(join(root, 'migrations'))) {
    for (const f of readdirSync(dir)) if (MIGRATION_FILE.test(f) && f.endsWith('.ts') && !f.endsWith('.d.ts')) entries.add(join(dir, f));
  }
  const built = new Set();
  const assetsImported = new Set();
  let round = [...entries];
  while (round.length > 0) {
    const found = new Set();
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: round,
      outdir,
      outbase: root,
      bundle: true, // only so that the plugin below sees every import; each one is left external
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfig: join(root, 'tsconfig.json'),
      logLevel: 'silent',
      plugins: [externalImports(root, found, assetsImported)],
    });
    if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join('\n'));
    for (const f of round) built.add(f);
    round = [...found].filter((f) => !built.has(f));
  }
  for (const file of assetsImported) {
    if (!existsSync(file)) throw new Error(`a compiled module imports ${relative(root, file)}, which does not exist`);
  }
  return built.size;
}

/**
 * An esbuild plugin that keeps every import external: a relative `.ts` import becomes `.js` and
 * its file is recorded in `found` (to be compiled in a next round); another relative file is
 * recorded in `assets` (it must exist in the build); package and `node:` imports are kept as written.
 */
function externalImports(root, found, assets) {
  return {
    name: 'aerie-external-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (!args.path.startsWith('.') && !isAbsolute(args.path)) return { path: args.path, external: true };
        const file = resolve(args.resolveDir, args.path);
        if (relative(root, file).startsWith('..')) throw new Error(`${relative(root, args.importer)} imports ${args.path}, outside the repository`);
        if (/\.ts$/.test(file)) {
          if (!existsSync(file)) throw new Error(`${relative(root, args.importer)} imports ${args.path}, which does not exist`);
          found.add(file);
          return { path: args.path.replace(/\.ts$/, '.js'), external: true };
        }
        assets.add(file);
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * Copies what the compiled code reads as files: under plugins/ every file that is not TypeScript
 * or documentation (each `plugin.json` with its `entry` rewritten to `.js`), schemas/*.json and the
 * worker bootstrap. @returns how many files were copied.
 */
function copyAssets(root, outdir) {
  let n = 0;
  const copy = (from, to = from) => {
    mkdirSync(dirname(join(outdir, to)), { recursive: true });
    copyFileSync(join(root, from), join(outdir, to));
    n++;
  };
  for (const file of walk(join(root, 'plugins'))) {
    const rel = relative(root, file);
    if (/\.(ts|md)$/.test(file)) continue;
    if (basename(file) === 'plugin.json') {
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      manifest.entry = manifest.entry.replace(/\.ts$/, '.js');
      mkdirSync(dirname(join(outdir, rel)), { recursive: true });
      writeFileSync(join(outdir, rel), `${JSON.stringify(manifest, null, 2)}\n`);
      n++;
    } else {
      copy(rel);
    }
  }
  for (const file of walk(join(root, 'schemas'))) if (file.endsWith('.json')) copy(relative(root, file));
  copy(WORKER_BOOTSTRAP);
  return n;
}

/**
 * Bare imports resolve through the nearest node_modules above a file: a build inside the repository
 * finds the repository's; one elsewhere gets a link to it.
 */
function linkNodeModules(root, out, staging) {
  const rel = relative(root, out);
  if (!rel.startsWith('..') && !isAbsolute(rel)) return;
  symlinkSync(realpathSync(join(root, 'node_modules')), join(staging, 'node_modules'), 'dir');
}

/** Replaces `out` by `staging` with renames; retries when a concurrent build swapped first. */
function swapIn(staging, out) {
  for (let attempt = 0; ; attempt++) {
    const old = `${out}.old-${process.pid}-${attempt}`;
    try {
      renameSync(out, old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    try {
      renameSync(staging, out);
      rmSync(old, { recursive: true, force: true });
      return;
    } catch (err) {
      rmSync(old, { recursive: true, force: true });
      if ((err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') || attempt >= 5) throw err;
    }
  }
}

/** sha256 over the path, size and modification time of every file the build reads, and this script. */
function sourceFingerprint(root) {
  const hash = createHash('sha256');
  const files = [...SOURCE_DIRS.flatMap((d) => walk(join(root, d))), ...SOURCE_FILES.map((f) => join(root, f)), fileURLToPath(import.meta.url)];
  for (const file of files.sort()) {
    const stat = statSync(file, { throwIfNoEntry: false });
    hash.update(`${relative(root, file)}\0${stat?.size}\0${stat?.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function readStamp(out) {
  try {
    return JSON.parse(readFileSync(join(out, STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : walk(path);
    return e.isFile() ? [path] : [];
  });
}

function childDirs(dir) {
  return existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).sort() : [];
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  try {
    const result = await buildServer({ out: outAt >= 0 ? args[outAt + 1] : undefined, force: args.includes('--force') });
    if (!args.includes('--quiet')) {
      const where = relative(process.cwd(), result.out) || '.';
      process.stdout.write(result.skipped ? `${where}${sep} is up to date (${result.files} files)\n` : `built ${where}${sep} (${result.files} files) in ${(result.ms / 1000).toFixed(1)} s\n`);
    }
  } catch (err) {
    process.stderr.write(`aerie build: ${err.message}\n`);
    process.exit(1);
  }
}
