/**
 * Every refusal the box can give, each with its own code, printed on the box output.
 * Each scenario starts from a provisioned demo box that was tampered and issued a nonce, once
 * with each P-256 suite (noble for Node, elliptic for the Espruino board).
 */
import { describe, expect, it } from 'vitest';
import { ellipticP256 } from '../../appliance/p256-elliptic.ts';
import { nobleP256 } from '../../appliance/p256-noble.ts';
import type { P256Suite } from '../../appliance/p256.ts';
import { REFUSALS, refusalLine, type RefusalCode } from '../../appliance/refusal-codes.ts';
import { issueTicket } from '../../appliance/ticket-issuer.ts';
import { makeBox, makeKey, signRaw, T0, type TestBox } from './helpers.ts';

const key = makeKey();
const otherKey = makeKey();
const ID = 'DEMO-0001';

interface Ctx extends TestBox {
  nonce: string;
  good: (over?: Partial<{ box: string; nonce: string; iat: number }>) => string;
  payload: (over?: Record<string, unknown>) => Record<string, unknown>;
}

function erasedDemo(demo = true, p256: P256Suite = nobleP256): Ctx {
  const t = makeBox(undefined, undefined, p256);
  t.box.provision({ id: ID, demo, pin: key.pin });
  t.hw.trip();
  const n = t.box.nonce();
  const nonce = n.ok ? n.value : 'f'.repeat(32);
  const base = { box: ID, nonce, org: 'acme', by: 'owner-1', iat: T0 };
  return {
    ...t,
    nonce,
    good: (over = {}) => issueTicket({ ...base, ...over }, key.secretKey).ticket,
    payload: (over = {}) => ({ v: 1, typ: 'roost-rearm', ...base, exp: T0 + 600, ...over }),
  };
}

function flip(text: string, part: 0 | 1): string {
  const parts = text.split('.');
  const bytes = Buffer.from(parts[part], 'base64url');
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

type Scenario = [label: string, code: RefusalCode, run: (c: Ctx) => unknown];

const scenarios: Scenario[] = [
  ['replayed nonce', 'NONCE_REPLAYED', (c) => {
    const t = c.good();
    expect(c.box.rearm(t).ok).toBe(true);
    c.hw.trip();
    c.box.nonce();
    return c.box.rearm(t);
  }],
  ["another box's ticket", 'WRONG_BOX', (c) => c.box.rearm(c.good({ box: 'DEMO-0002' }))],
  ["another key's ticket", 'BAD_SIGNATURE', (c) => c.box.rearm(issueTicket({ box: ID, nonce: c.nonce, org: 'acme', by: 'x', iat: T0 }, otherKey.secretKey).ticket)],
  ['expired ticket', 'EXPIRED', (c) => { c.clock.now = T0 + 600 + 61; return c.box.rearm(c.good()); }],
  ['ticket from the future', 'NOT_YET_VALID', (c) => c.box.rearm(c.good({ iat: T0 + 61 }))],
  ['one flipped byte in the payload', 'BAD_SIGNATURE', (c) => c.box.rearm(flip(c.good(), 0))],
  ['one flipped byte in the signature', 'BAD_SIGNATURE', (c) => c.box.rearm(flip(c.good(), 1))],
  ['typ changed (validly signed)', 'WRONG_TYPE', (c) => c.box.rearm(signRaw(c.payload({ typ: 'roost-arm' }), key))],
  ['v changed (validly signed)', 'WRONG_VERSION', (c) => c.box.rearm(signRaw(c.payload({ v: 2 }), key))],
  ['lifetime not 600 s', 'BAD_LIFETIME', (c) => c.box.rearm(signRaw(c.payload({ exp: T0 + 3600 }), key))],
  ['nonce the box did not issue', 'NONCE_MISMATCH', (c) => c.box.rearm(c.good({ nonce: 'a'.repeat(32) }))],
  ['no nonce issued', 'NO_NONCE_ISSUED', (c) => { c.hw.trip(); return c.box.rearm(c.good()); }],
  ['production box', 'PRODUCTION_BOX', (c) => {
    const p = erasedDemo(false);
    expect(p.box.nonce()).toEqual({ ok: false, code: 'PRODUCTION_BOX' });
    const r = p.box.rearm(c.good());
    c.lines.push(...p.lines);
    return r;
  }],
  ['armed box', 'NOT_ERASED', (c) => { c.box.rearm(c.good()); return c.box.rearm(c.good()); }],
  ['padded base64url', 'MALFORMED', (c) => c.box.rearm(c.good() + '=')],
  ['three parts', 'MALFORMED', (c) => c.box.rearm(c.good() + '.AA')],
  ['63-byte signature', 'MALFORMED', (c) => { const [p, s] = c.good().split('.'); return c.box.rearm(p + '.' + Buffer.from(s, 'base64url').subarray(1).toString('base64url')); }],
  ['surrounding whitespace', 'MALFORMED', (c) => c.box.rearm(' ' + c.good())],
  ['signed payload that is not JSON', 'MALFORMED', (c) => c.box.rearm(signRaw('not json', key))],
  ['signed payload with an extra key', 'MALFORMED', (c) => c.box.rearm(signRaw(c.payload({ extra: 1 }), key))],
  ['signed payload with an upper-case nonce', 'MALFORMED', (c) => c.box.rearm(signRaw(c.payload({ nonce: c.nonce.toUpperCase() }), key))],
  ['signed payload with invalid UTF-8', 'MALFORMED', (c) => {
    const bytes = Buffer.concat([Buffer.from('{"v":1,"org":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
    return c.box.rearm(signRaw(new Uint8Array(bytes), key));
  }],
  ['unprovisioned box', 'NOT_PROVISIONED', (c) => { const u = makeBox(); const r = u.box.rearm(c.good()); c.lines.push(...u.lines); return r; }],
  ['provisioning twice', 'ALREADY_PROVISIONED', (c) => c.box.provision({ id: ID, demo: true, pin: otherKey.pin })],
  ['bad box id at provisioning', 'INVALID_BOX_ID', (c) => { const u = makeBox(); const r = u.box.provision({ id: 'demo-1', demo: true, pin: key.pin }); c.lines.push(...u.lines); return r; }],
];

describe.each([
  ['noble', nobleP256],
  ['elliptic', ellipticP256],
] as const)('refusals (%s suite)', (_suite, p256) => {
  it.each(scenarios)('%s → %s', (_label, code, run) => {
    const c = erasedDemo(true, p256);
    const result = run(c);
    expect(result).toEqual({ ok: false, code });
    expect(c.lines[c.lines.length - 1]).toBe(refusalLine(code));
    expect(c.lines[c.lines.length - 1]).toMatch(new RegExp('^REFUSED ' + code + ': '));
  });

  it('a refusal changes nothing: the box stays erased and its nonce still works', () => {
    const c = erasedDemo(true, p256);
    const before = JSON.stringify(c.records);
    expect(c.box.rearm(flip(c.good(), 1)).ok).toBe(false);
    expect(c.box.rearm(c.good({ box: 'DEMO-0002' })).ok).toBe(false);
    expect(JSON.stringify(c.records)).toBe(before);
    expect(c.box.rearm(c.good())).toMatchObject({ ok: true, value: { state: 'armed' } });
  });

  it.each([
    ['iat - 60 s', T0 - 60, true],
    ['iat - 61 s', T0 - 61, false],
    ['exp + 60 s', T0 + 660, true],
    ['exp + 61 s', T0 + 661, false],
  ])('clock tolerance is 60 s each way: box clock at %s accepted=%s', (_l, now, ok) => {
    const c = erasedDemo(true, p256);
    c.clock.now = now;
    expect(c.box.rearm(c.good()).ok).toBe(ok);
  });

  it('covers every code in the refusal table (INVALID_PIN is tested with the pin)', () => {
    const tested = new Set<string>(scenarios.map((s) => s[1]));
    tested.add('INVALID_PIN');
    expect([...tested].sort()).toEqual(Object.keys(REFUSALS).sort());
  });
});
