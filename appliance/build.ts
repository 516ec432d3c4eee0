/**
 * `npm run appliance:build`: bundle the box for Espruino, lower it to ES5 and pass it through the
 * `espruino` command-line tools offline, producing `appliance/dist/roost.js`, the file an owner
 * flashes.
 *
 * 1. esbuild bundles `espruino/main.ts` into one script, `var roost = (() => { … })();`. The
 *    board's crypto is `elliptic` (only `curve/short`) + `bn.js` + `hash.js` (SHA-256), all ES5
 *    and free of `BigInt` (Espruino has none); `@noble/curves` is not in the bundle. `bn.js`'s
 *    optional `require('buffer')` is replaced by an empty module and `inherits` by its
 *    browser (plain ES5) file, so nothing is left for the board to `require` but `Storage`.
 * 2. Babel (`@babel/preset-env`, ES5 targets) lowers the bundle to ES5, then esbuild minifies it
 *    with `target: 'es5'` (minifying only, no syntax is added). esbuild cannot lower
 *    `let`/`const`/classes/arrow functions below ES2015, and TypeScript 7 no longer has an ES5
 *    target; Espruino is ES5 plus only parts of ES2015. Babel is pure JavaScript: SWC was tried
 *    first, but its platform binaries for other systems are not on this registry, so a lock file
 *    made here fails `npm ci`. Function declarations are moved to the top of their scope
 *    (`hoist-functions.ts`): Espruino does not hoist them. The result must parse as ES5 (acorn, `ecmaVersion: 5`), or the
 *    build fails. This is `roost.bundle.js`.
 * 3. `espruino -n --board appliance/board.json -o dist/roost.js dist/roost.bundle.js` runs the
 *    Espruino upload pipeline without a device (module resolution against the board's built-in
 *    modules, code transforms) and writes exactly what would be sent to the board.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transformAsync } from '@babel/core';
import { parse } from 'acorn';
import { build, transform, type Plugin } from 'esbuild';
import { hoistFunctionDeclarations } from './hoist-functions.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Where the build writes by default. */
export const DEFAULT_OUT_DIR = join(HERE, 'dist');

/** The third-party code in the bundle and its licenses, written at the end of the artifact. */
const LICENSE_FOOTER =
  '/* roost bundles: elliptic, bn.js, hash.js (MIT, (c) Fedor Indutny), minimalistic-crypto-utils (MIT), ' +
  'minimalistic-assert (ISC), inherits (ISC); see their package licenses. */';

/** `bn.js` tries `require('buffer')` inside a try/catch; on the board there is no such module. */
const noNodeBuffer: Plugin = {
  name: 'no-node-buffer',
  setup(b) {
    b.onResolve({ filter: /^buffer$/ }, (args) => ({ path: args.path, namespace: 'roost-empty' }));
    b.onLoad({ filter: /.*/, namespace: 'roost-empty' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/**
 * Whether `code` parses as an ES5 script (acorn, `ecmaVersion: 5`).
 * @param code - JavaScript source
 * @returns `null` when it does, else the parse error message (with line and column)
 */
export function es5SyntaxError(code: string): string | null {
  try {
    parse(code, { ecmaVersion: 5, sourceType: 'script' });
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** What a build produced. */
export interface ApplianceBuild {
  /** The flashable script (`roost.js`). */
  outFile: string;
  /** The ES5 bundle the espruino tools read (`roost.bundle.js`). */
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
 * @throws Error when esbuild or Babel fails, the bundle does not parse as ES5, or the espruino tool
 *   exits non-zero or writes nothing
 */
export async function buildAppliance(outDir: string = DEFAULT_OUT_DIR): Promise<ApplianceBuild> {
  mkdirSync(outDir, { recursive: true });
  const bundleFile = join(outDir, 'roost.bundle.js');
  const outFile = join(outDir, 'roost.js');
  const bundled = await build({
    entryPoints: [join(HERE, 'espruino', 'main.ts')],
    write: false,
    bundle: true,
    format: 'iife',
    globalName: 'roost',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2017', // Babel lowers the rest to ES5
    alias: { inherits: 'inherits/inherits_browser.js' },
    plugins: [noNodeBuffer],
    external: ['Storage'],
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'error',
  });
  const lowered = await transformAsync(bundled.outputFiles[0].text, {
    sourceType: 'script',
    babelrc: false,
    configFile: false,
    compact: false,
    comments: false,
    // The only for-of loops are esbuild's module helpers, over Object.getOwnPropertyNames()
    // arrays: lower them to index loops rather than to Symbol.iterator calls. Code bundled for
    // the board must therefore not use for-of or spread on anything but arrays and strings.
    assumptions: { iterableIsArray: true },
    plugins: [hoistFunctionDeclarations],
    presets: [[createRequire(import.meta.url).resolve('@babel/preset-env'), { targets: { ie: '11' }, modules: false, useBuiltIns: false }]],
  });
  if (!lowered?.code) throw new Error('babel produced no code');
  const minified = await transform(lowered.code, { target: 'es5', minify: true, charset: 'ascii', legalComments: 'none' });
  const es5 = minified.code.trim() + '\n' + LICENSE_FOOTER + '\n';
  const syntax = es5SyntaxError(es5);
  if (syntax) throw new Error('bundle is not ES5: ' + syntax);
  writeFileSync(bundleFile, es5);
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
