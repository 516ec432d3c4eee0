/**
 * `npx tsx appliance/measure.ts`: the cost figures quoted in docs/appliance.md, measured on this
 * machine (there is no Espruino board here, so nothing below is a board figure).
 *
 * 1. bytes: the built artifact, and the minified size of each verifier candidate on its own;
 * 2. work of one verification: calls to bn.js field operations and BN objects constructed,
 *    counted in Node by wrapping `bn.js` prototype methods around one `ellipticP256.verify`;
 * 3. time: one re-arm of the built artifact in a Node `vm` context without BigInt (as the
 *    bundle test runs it), and one verification in plain Node with each suite.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { p256 } from '@noble/curves/nist.js';
import BN from 'bn.js';
import { build, type Plugin } from 'esbuild';
import { buildAppliance } from './build.ts';
import { ellipticP256 } from './p256-elliptic.ts';
import { nobleP256 } from './p256-noble.ts';
import { pemFromPoint } from './pin.ts';
import { issueTicket } from './ticket-issuer.ts';

const HERE = import.meta.dirname;

/**
 * Stubs for Node-only requires of the candidates (`buffer` in bn.js, `crypto` in brorand) and,
 * unless `keepTable`, for elliptic's precomputed secp256k1 table (elliptic loads it in a try).
 */
function stubs(keepTable: boolean): Plugin {
  return {
    name: 'stubs',
    setup(b) {
      b.onResolve({ filter: /^(buffer|crypto)$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
      if (!keepTable) b.onResolve({ filter: /precomputed\/secp256k1$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
      b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
    },
  };
}

async function minifiedBytes(source: string, withStubs: Plugin[]): Promise<number> {
  const r = await build({
    stdin: { contents: source, resolveDir: HERE, loader: 'ts' },
    bundle: true, write: false, format: 'iife', platform: 'neutral', mainFields: ['module', 'main'],
    target: 'es2020', minify: true, legalComments: 'none', logLevel: 'error',
    alias: { inherits: 'inherits/inherits_browser.js' }, plugins: withStubs,
  });
  return r.outputFiles[0].contents.length;
}

const CANDIDATES: Array<[string, string, boolean]> = [
  ['@noble/curves p256 + @noble/hashes sha256 (needs BigInt)', "import { nobleP256 } from './p256-noble.ts'; export default nobleP256;", false],
  ["elliptic, whole package, ec('p256')", "import e from 'elliptic'; export default new e.ec('p256');", true],
  ["elliptic, whole package, ec('p256'), secp256k1 table stubbed out", "import e from 'elliptic'; export default new e.ec('p256');", false],
  ["elliptic/lib/elliptic/ec + p256 preset, secp256k1 table stubbed out", "import EC from 'elliptic/lib/elliptic/ec/index.js'; export default new EC('p256');", false],
  ['elliptic/lib/elliptic/curve/short + bn.js + hash.js sha256 (chosen)', "import { ellipticP256 } from './p256-elliptic.ts'; export default ellipticP256;", false],
];

async function sizes(): Promise<void> {
  const art = await buildAppliance();
  console.log('artifact appliance/dist/roost.js: ' + art.bytes + ' bytes (ES5, minified)');
  for (const [label, src, keepTable] of CANDIDATES) {
    console.log('  candidate ' + label + ': ' + (await minifiedBytes(src, [stubs(keepTable)])) + ' bytes minified');
  }
}

function countWork(): void {
  const key = p256.keygen();
  const msg = randomBytes(180);
  const sig = p256.sign(msg, key.secretKey, { prehash: true });
  const proto = BN.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names = ['redMul', 'redIMul', 'redSqr', 'redISqr', 'redInvm', 'redSqrt', 'redPow', 'invm', 'mul', 'umod'];
  const counts: Record<string, number> = {};
  const originals: Record<string, (...a: unknown[]) => unknown> = {};
  for (const n of names) {
    originals[n] = proto[n];
    counts[n] = 0;
    proto[n] = function (this: unknown, ...a: unknown[]) {
      counts[n]++;
      return originals[n].apply(this, a);
    };
  }
  const bnStatic = BN as unknown as { isBN: (x: unknown) => boolean };
  const isBN = bnStatic.isBN;
  let constructed = 0;
  bnStatic.isBN = (x: unknown) => {
    constructed++;
    return isBN(x);
  };
  ellipticP256.isPoint(key.publicKey); // builds the curve once, outside the count
  for (const n of names) counts[n] = 0;
  constructed = 0;
  const ok = ellipticP256.verify(sig, msg, key.publicKey);
  bnStatic.isBN = isBN;
  for (const n of names) proto[n] = originals[n];
  const fieldMul = counts.redMul + counts.redIMul;
  const fieldSqr = counts.redSqr + counts.redISqr;
  console.log('one ellipticP256.verify (valid=' + ok + '): ' + fieldMul + ' field multiplications, ' + fieldSqr + ' squarings, ' +
    (counts.redInvm + counts.invm) + ' inversions; ' + constructed + ' BN objects constructed (isBN calls, an upper bound); ' +
    JSON.stringify(counts));
}

function time(label: string, runs: number, fn: () => unknown): void {
  fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / runs;
  console.log(label + ': ' + ms.toFixed(1) + ' ms (mean of ' + runs + ')');
}

function vmRearm(remove: string[]): void {
  const code = readFileSync(join(HERE, 'dist', 'roost.js'), 'utf8');
  const key = p256.keygen();
  const files: Record<string, string> = {};
  const out: string[] = [];
  const ctx = createContext({
    E: { hwRand: () => randomBytes(4).readInt32LE(0) },
    require: (name: string) => {
      if (name !== 'Storage') throw new Error('Module ' + name + ' not found');
      return { read: (n: string) => files[n], write: (n: string, d: string) => ((files[n] = d), true), erase: (n: string) => void delete files[n] };
    },
    getTime: () => 1767225600,
    setWatch: () => undefined,
    BTN: 'C13',
    console: { log: (l: string) => void out.push(l) },
  });
  for (const g of remove) runInContext('delete globalThis.' + g, ctx);
  runInContext(code, ctx);
  const roost = runInContext('roost', ctx);
  roost.provision('DEMO-0001', true, pemFromPoint(key.publicKey));
  roost.tamper();
  const nonce = roost.nonce().value as string;
  const ticket = issueTicket({ box: 'DEMO-0001', nonce, org: 'acme', by: 'u', iat: 1767225600 }, key.secretKey).ticket;
  const [p, s] = ticket.split('.');
  const bad = p + '.' + Buffer.from(Buffer.from(s, 'base64url').map((b, i) => (i === 40 ? b ^ 1 : b))).toString('base64url');
  time('vm, built artifact, without ' + remove.join(', ') + ': one roost.rearm (full verification, refused)', 5, () => roost.rearm(bad));
  const t0 = process.hrtime.bigint();
  const ok = roost.rearm(ticket).ok;
  console.log('  and the accepted re-arm: ' + (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1) + ' ms, ok=' + ok);
}

await sizes();
countWork();
const k = p256.keygen();
const m = randomBytes(180);
const sg = p256.sign(m, k.secretKey, { prehash: true });
time('Node (JIT), ellipticP256.verify', 20, () => ellipticP256.verify(sg, m, k.publicKey));
time('Node (JIT), nobleP256.verify', 20, () => nobleP256.verify(sg, m, k.publicKey));
vmRearm(['BigInt']);
vmRearm(['BigInt', 'Math.imul']);
