/**
 * `npm run appliance:build`: bundle the box for Espruino and pass it through the `espruino`
 * command-line tools offline, producing `appliance/dist/roost.js`, the file an owner flashes.
 *
 * 1. esbuild bundles `espruino/main.ts` (and `@noble/curves`) into one self-contained script,
 *    `var roost = (() => { … })();`, ES2015 syntax (BigInt and `**` kept, see docs/appliance.md);
 * 2. `espruino -n --board appliance/board.json -o dist/roost.js dist/roost.bundle.js` runs the
 *    Espruino upload pipeline without a device (module resolution against the board's built-in
 *    modules, code transforms) and writes exactly what would be sent to the board.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Where the build writes by default. */
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

/** What a build produced. */
export interface ApplianceBuild {
  /** The flashable script (`roost.js`). */
  outFile: string;
  /** The esbuild bundle the espruino tools read (`roost.bundle.js`). */
  bundleFile: string;
  /** Size of `outFile` in bytes. */
  bytes: number;
  /** SHA-256 of `outFile`, lowercase hex (to compare with what is on a board). */
  sha256: string;
}

/**
 * Build the Espruino artifact.
 * @param outDir - output directory; default `appliance/dist`
 * @returns paths, size and digest of the artifact
 * @throws Error when esbuild fails or the espruino tool exits non-zero or writes nothing
 */
export async function buildAppliance(outDir: string = DEFAULT_OUT_DIR): Promise<ApplianceBuild> {
  mkdirSync(outDir, { recursive: true });
  const bundleFile = join(outDir, 'roost.bundle.js');
  const outFile = join(outDir, 'roost.js');
  await build({
    entryPoints: [join(HERE, 'espruino', 'main.ts')],
    outfile: bundleFile,
    bundle: true,
    format: 'iife',
    globalName: 'roost',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    // Espruino is ES5 plus parts of ES2015; esbuild cannot lower let/const/classes below ES2015.
    // BigInt (noble) cannot be lowered at all, and `**` on BigInt must not become Math.pow.
    target: 'es2015',
    supported: { bigint: true, 'exponent-operator': true },
    external: ['Storage'],
    charset: 'ascii',
    minify: true,
    legalComments: 'eof',
    logLevel: 'error',
  });
  const cli = createRequire(import.meta.url).resolve('espruino/bin/espruino-cli.js');
  const board = join(HERE, 'board.json');
  await promisify(execFile)(process.execPath, [cli, '-n', '--board', board, '-o', outFile, bundleFile], {
    cwd: outDir,
    timeout: 60_000,
  });
  const bytes = statSync(outFile).size;
  if (bytes === 0) throw new Error('espruino tool wrote an empty ' + outFile);
  const sha256 = createHash('sha256').update(readFileSync(outFile)).digest('hex');
  return { outFile, bundleFile, bytes, sha256 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_OUT_DIR;
  buildAppliance(outDir).then(
    (r) => console.log('roost: ' + r.outFile + ' (' + r.bytes + ' bytes, sha256 ' + r.sha256 + ')'),
    (e: unknown) => {
      console.error('roost build failed:', e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
