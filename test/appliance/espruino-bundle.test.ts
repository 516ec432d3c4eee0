/**
 * The shipped artifact itself: `appliance/dist/roost.js` (built first when missing or stale) runs
 * in a bare `vm` context that has only JavaScript built-ins plus a fake Espruino (`E`, `require`
 * answering `Storage`, `getTime`, `setWatch`, `BTN`, `console`), with `BigInt` deleted (Espruino
 * has none), and re-arms with a server-issued ticket. It must also parse as ES5.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext, type Context } from 'node:vm';
import { parse, type Node } from 'acorn';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAppliance, DEFAULT_OUT_DIR, es5SyntaxError } from '../../appliance/build.ts';
import { issueTicket } from '../../appliance/ticket-issuer.ts';
import { makeKey, signWithNode, T0 } from './helpers.ts';

const APPLIANCE = join(__dirname, '../../appliance');
const ARTIFACT = join(DEFAULT_OUT_DIR, 'roost.js');
const key = makeKey();
let code: string;

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'dist' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

interface Board {
  ctx: Context;
  out: string[];
  files: Record<string, string>;
  clock: { t: number };
  watch: { fn?: () => void; pin?: unknown; opts?: unknown };
  roost: { provision: Function; status: Function; nonce: Function; rearm: Function; tamper: Function };
}

/** Espruino has no BigInt: every boot below runs without it. */
const NO_BIGINT = ['BigInt'];
/**
 * Stricter than Espruino needs: ES2015+ globals the bundle must not depend on either. Espruino
 * lacks some of these and has others; removing them all shows the bundle works either way
 * (bn.js then takes its no-`Math.imul` path).
 */
const NO_ES2015_GLOBALS = ['BigInt', 'Symbol', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Reflect', 'Proxy', 'Promise', 'Math.imul'];

/**
 * Power a fake board on with the given flash contents and run the artifact on it.
 * @param files - the board's Storage
 * @param remove - globals deleted from the context before the artifact runs
 */
function boot(files: Record<string, string> = {}, remove: string[] = NO_BIGINT): Board {
  const out: string[] = [];
  const clock = { t: T0 };
  const watch: Board['watch'] = {};
  const Storage = {
    read: (n: string) => files[n],
    write: (n: string, d: string) => ((files[n] = String(d)), true),
    erase: (n: string) => void delete files[n],
  };
  const ctx = createContext({
    E: { hwRand: () => randomBytes(4).readInt32LE(0) },
    require: (name: string) => {
      if (name === 'Storage') return Storage;
      throw new Error('Module ' + name + ' not found');
    },
    getTime: () => clock.t + 0.25,
    setWatch: (fn: () => void, pin: unknown, opts: unknown) => Object.assign(watch, { fn, pin, opts }),
    BTN: 'C13',
    console: { log: (...a: unknown[]) => void out.push(a.join(' ')) },
  });
  for (const g of remove) runInContext('delete globalThis.' + g, ctx);
  expect(runInContext(remove.map((g) => 'typeof globalThis.' + g).join('+","+'), ctx)).toBe(remove.map(() => 'undefined').join());
  runInContext(code, ctx, { filename: 'roost.js' });
  return { ctx, out, files, clock, watch, roost: runInContext('roost', ctx) };
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/**
 * Names used before their function declaration in the same scope, outside nested functions.
 * Espruino's feature table lists no function hoisting, so such a use could fail on a board.
 * (Calls made through an earlier function into a later declaration are not caught.)
 */
function usesBeforeDeclaration(source: string): string[] {
  const found: string[] = [];
  type AnyNode = Node & Record<string, unknown>;
  const scope = (stmts: AnyNode[]) => {
    const declaredAt = new Map<string, number>();
    for (const st of stmts) if (st.type === 'FunctionDeclaration') declaredAt.set((st.id as { name: string }).name, st.start);
    const visit = (n: AnyNode) => {
      if (n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression') return scope((n.body as { body: AnyNode[] }).body);
      if (n.type === 'Identifier' && declaredAt.has(n.name as string) && n.start < declaredAt.get(n.name as string)!) found.push(n.name as string);
      for (const k in n) {
        const v = n[k] as AnyNode | AnyNode[] | null;
        for (const c of Array.isArray(v) ? v : [v]) if (c && typeof c === 'object' && typeof c.type === 'string') visit(c);
      }
    };
    stmts.forEach(visit);
  };
  scope((parse(source, { ecmaVersion: 5 }) as unknown as { body: AnyNode[] }).body);
  return found;
}

beforeAll(async () => {
  if (!existsSync(ARTIFACT) || statSync(ARTIFACT).mtimeMs < newestSource(APPLIANCE)) await buildAppliance();
  code = readFileSync(ARTIFACT, 'utf8');
}, 60_000);

describe('Espruino artifact (appliance/dist/roost.js) in a bare vm', () => {
  it('sees no Node or browser APIs, only the fake Espruino globals', () => {
    const b = boot();
    const seen = runInContext(
      '[typeof process, typeof Buffer, typeof TextEncoder, typeof TextDecoder, typeof atob, typeof crypto, typeof setTimeout, typeof fetch].join()',
      b.ctx,
    );
    expect(seen).toBe(Array(8).fill('undefined').join());
    expect(runInContext('typeof BigInt', b.ctx)).toBe('undefined');
    expect(code).toMatch(/^"use strict";.*var roost=/);
  });

  it('is ES5 (acorn, ecmaVersion 5) and carries no BigInt code (noble is not bundled)', () => {
    expect(es5SyntaxError(code)).toBeNull();
    expect(es5SyntaxError('let x = 1;')).toMatch(/Unexpected|reserved/i);
    expect(code).not.toMatch(/BigInt|noble/);
    expect(code).not.toMatch(/=>|\bconst |\blet |\bclass /);
  });

  it('uses no function declaration before it is declared (Espruino lists no function hoisting)', () => {
    expect(usesBeforeDeclaration('f(); function f() {}')).toEqual(['f']);
    expect(usesBeforeDeclaration('function f() {} f(); var g = function () { h(); }; function h() {}')).toEqual([]);
    expect(usesBeforeDeclaration(code)).toEqual([]);
  });

  it.each([
    ['without BigInt', NO_BIGINT],
    ['without BigInt, Symbol, Map, Set, WeakMap, WeakSet, Reflect, Proxy, Promise, Math.imul', NO_ES2015_GLOBALS],
  ])('%s: boots, provisions, trips the tamper pin, issues a nonce and re-arms with a server-issued ticket', (_label, remove) => {
    const b = boot({}, remove);
    expect(b.out).toEqual(['REFUSED NOT_PROVISIONED: box is not provisioned']);
    expect(b.watch).toMatchObject({ pin: 'C13', opts: { repeat: true, edge: 'rising', debounce: 50 } });
    const pem = key.pem.replace(/\n/g, '');
    expect(plain(b.roost.provision('DEMO-0001', true, pem, key.pin.fingerprint))).toMatchObject({ ok: true, value: { state: 'armed' } });
    b.watch.fn!();
    expect(b.out.at(-1)).toBe('TAMPER DEMO-0001 erased');
    const n = plain(b.roost.nonce());
    expect(n.value).toMatch(/^[0-9a-f]{32}$/);
    expect(b.out.at(-1)).toBe('NONCE ' + n.value);
    b.clock.t = T0 + 30;
    const { ticket } = issueTicket({ box: 'DEMO-0001', nonce: n.value, org: 'acme', by: 'owner-1', iat: T0 + 20 }, key.secretKey);
    expect(plain(b.roost.rearm(ticket))).toEqual({
      ok: true,
      value: { id: 'DEMO-0001', mode: 'demo', state: 'armed', fingerprint: key.pin.fingerprint, nonce: null, since: T0 + 30 },
    });
    expect(b.out.at(-1)).toBe('ARMED DEMO-0001 by owner-1 for acme');

    // Reboot with the same flash: state survives; the used ticket is now a replay.
    const again = boot(b.files, remove);
    expect(again.out).toEqual(['BOX DEMO-0001 demo armed since ' + (T0 + 30) + ' key ' + key.pin.fingerprint]);
    again.watch.fn!();
    again.roost.nonce();
    expect(plain(again.roost.rearm(ticket))).toEqual({ ok: false, code: 'NONCE_REPLAYED' });
    expect(again.out.at(-1)).toBe('REFUSED NONCE_REPLAYED: nonce was already used');
  });

  it('refuses on the device: wrong pin at provisioning, another key, flipped signature or payload byte', () => {
    const b = boot();
    expect(plain(b.roost.provision('DEMO-0001', true, key.pem, 'ab'.repeat(32)))).toEqual({ ok: false, code: 'INVALID_PIN' });
    expect(plain(b.roost.provision('DEMO-0001', true, 'not a pem'))).toEqual({ ok: false, code: 'INVALID_PIN' });
    b.roost.provision('DEMO-0001', true, key.pem);
    b.roost.tamper();
    const nonce = plain(b.roost.nonce()).value;
    const other = issueTicket({ box: 'DEMO-0001', nonce, org: 'acme', by: 'o', iat: T0 }, makeKey().secretKey).ticket;
    expect(plain(b.roost.rearm(other))).toEqual({ ok: false, code: 'BAD_SIGNATURE' });
    const good = issueTicket({ box: 'DEMO-0001', nonce, org: 'acme', by: 'o', iat: T0 }, key.secretKey).ticket;
    const [p, s] = good.split('.');
    const sig = Buffer.from(s, 'base64url');
    sig[40] ^= 0x80;
    expect(plain(b.roost.rearm(p + '.' + sig.toString('base64url')))).toEqual({ ok: false, code: 'BAD_SIGNATURE' });
    expect(b.out.at(-1)).toBe('REFUSED BAD_SIGNATURE: signature does not verify with the pinned key');
    const payload = Buffer.from(p, 'base64url');
    payload[payload.indexOf('acme')] ^= 0x01; // "acme" -> "`cme": still JSON, no longer signed
    expect(plain(b.roost.rearm(payload.toString('base64url') + '.' + s))).toEqual({ ok: false, code: 'BAD_SIGNATURE' });
    const highS = Buffer.from(s, 'base64url');
    const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
    const flippedS = n - BigInt('0x' + highS.subarray(32).toString('hex'));
    Buffer.from(flippedS.toString(16).padStart(64, '0'), 'hex').copy(highS, 32);
    expect(plain(b.roost.rearm(p + '.' + Buffer.from(new Uint8Array(64)).toString('base64url')))).toEqual({ ok: false, code: 'BAD_SIGNATURE' });
    // n - s verifies as well as s (high-S accepted, as documented in ticket.ts): the box re-arms
    expect(plain(b.roost.rearm(p + '.' + highS.toString('base64url'))).ok).toBe(true);
  });

  it('re-arms with a ticket signed by Node crypto (ieee-p1363), a second implementation', () => {
    const b = boot();
    b.roost.provision('DEMO-0001', true, key.pem);
    b.roost.tamper();
    const nonce = plain(b.roost.nonce()).value;
    const ticket = signWithNode(JSON.stringify({ v: 1, typ: 'roost-rearm', box: 'DEMO-0001', nonce, org: 'acme', by: 'u', iat: T0, exp: T0 + 600 }), key);
    expect(plain(b.roost.rearm(ticket)).ok).toBe(true);
  });
});
