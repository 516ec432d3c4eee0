/** The box state machine: armed → (tamper) erased → (demo: nonce + ticket) → armed. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOX_RECORD_NAME, SPENT_NONCES_KEPT } from '../../appliance/box-record.ts';
import { createBox } from '../../appliance/box.ts';
import { nobleP256 } from '../../appliance/p256-noble.ts';
import { memoryStorage } from '../../appliance/hardware.ts';
import { issueTicket } from '../../appliance/ticket-issuer.ts';
import { countingHex, makeBox, makeKey, T0 } from './helpers.ts';

const key = makeKey();
const ID = 'DEMO-0001';
const ticketFor = (nonce: string, iat = T0) => issueTicket({ box: ID, nonce, org: 'acme', by: 'owner-1', iat }, key.secretKey).ticket;
const record = (records: Record<string, string>) => JSON.parse(records[BOX_RECORD_NAME]);

describe('box state machine', () => {
  it('provisions armed, with the pinned key and a filled secret slot', () => {
    const t = makeBox();
    const r = t.box.provision({ id: ID, demo: true, pin: key.pin });
    expect(r).toEqual({ ok: true, value: { id: ID, mode: 'demo', state: 'armed', fingerprint: key.pin.fingerprint, nonce: null, since: T0 } });
    expect(record(t.records)).toMatchObject({ key: Buffer.from(key.pin.publicKey).toString('hex'), slot: countingHex(0, 32) });
    expect(t.lines).toEqual(['PROVISIONED DEMO-0001 demo key ' + key.pin.fingerprint]);
  });

  it('tamper input erases the box: state erased, secret slot and nonce wiped', () => {
    const t = makeBox();
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    t.clock.now = T0 + 5;
    t.hw.trip();
    expect(record(t.records)).toMatchObject({ state: 'erased', slot: null, nonce: null, since: T0 + 5 });
    expect(t.lines.at(-1)).toBe('TAMPER DEMO-0001 erased');
    expect(t.box.status()).toMatchObject({ ok: true, value: { state: 'erased' } });
  });

  it('issues a nonce of 32 lowercase hex from the random source, persisted before it is shown', () => {
    const t = makeBox();
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    t.hw.trip();
    const n = t.box.nonce();
    expect(n).toEqual({ ok: true, value: countingHex(32, 16) });
    expect(n.ok && n.value).toMatch(/^[0-9a-f]{32}$/);
    expect(record(t.records).nonce).toBe(countingHex(32, 16));
    expect(t.lines.at(-1)).toBe('NONCE ' + countingHex(32, 16));
    // asking again shows the same outstanding nonce
    expect(t.box.nonce()).toEqual(n);
  });

  it('the nonce survives a reboot (same storage, new box)', () => {
    const t = makeBox();
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    t.hw.trip();
    const n = t.box.nonce();
    const rebooted = makeBox(t.records);
    expect(rebooted.box.status()).toMatchObject({ ok: true, value: { state: 'erased', nonce: n.ok && n.value } });
    expect(rebooted.box.rearm(ticketFor(n.ok ? n.value : ''))).toMatchObject({ ok: true, value: { state: 'armed' } });
  });

  it('re-arms a demo box once per nonce, with a fresh secret slot', () => {
    const t = makeBox();
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    t.hw.trip();
    const n = t.box.nonce();
    const nonce = n.ok ? n.value : '';
    t.clock.now = T0 + 30;
    expect(t.box.rearm(ticketFor(nonce))).toEqual({
      ok: true,
      value: { id: ID, mode: 'demo', state: 'armed', fingerprint: key.pin.fingerprint, nonce: null, since: T0 + 30 },
    });
    expect(t.lines.at(-1)).toBe('ARMED DEMO-0001 by owner-1 for acme');
    expect(record(t.records)).toMatchObject({ state: 'armed', nonce: null, spent: [nonce], slot: countingHex(48, 32) });
    // tamper again: a new nonce, and the old ticket is a replay
    t.hw.trip();
    const n2 = t.box.nonce();
    expect(n2.ok && n2.value).not.toBe(nonce);
    expect(t.box.rearm(ticketFor(nonce))).toEqual({ ok: false, code: 'NONCE_REPLAYED' });
    expect(t.box.rearm(ticketFor(n2.ok ? n2.value : ''))).toMatchObject({ ok: true });
  });

  it('a production box stays erased forever', () => {
    const t = makeBox();
    t.box.provision({ id: 'PROD-0001', demo: false, pin: key.pin });
    t.hw.trip();
    expect(t.box.nonce()).toEqual({ ok: false, code: 'PRODUCTION_BOX' });
    const forged = issueTicket({ box: 'PROD-0001', nonce: 'a'.repeat(32), org: 'acme', by: 'o', iat: T0 }, key.secretKey).ticket;
    expect(t.box.rearm(forged)).toEqual({ ok: false, code: 'PRODUCTION_BOX' });
    t.hw.trip();
    expect(t.box.status()).toMatchObject({ ok: true, value: { mode: 'production', state: 'erased' } });
  });

  it('an armed box refuses nonce and rearm with NOT_ERASED', () => {
    const t = makeBox();
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    expect(t.box.nonce()).toEqual({ ok: false, code: 'NOT_ERASED' });
    expect(t.lines.at(-1)).toBe('REFUSED NOT_ERASED: box is armed, not erased');
  });

  it('remembers the last spent nonces only, and a damaged record reads as not provisioned', () => {
    const t = makeBox(undefined, (n) => new Uint8Array(randomBytes(n)));
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    for (let i = 0; i < SPENT_NONCES_KEPT + 3; i++) {
      t.hw.trip();
      const n = t.box.nonce();
      expect(t.box.rearm(ticketFor(n.ok ? n.value : '')).ok).toBe(true);
    }
    expect(record(t.records).spent).toHaveLength(SPENT_NONCES_KEPT);
    t.records[BOX_RECORD_NAME] = '{"v":1,';
    expect(t.box.status()).toEqual({ ok: false, code: 'NOT_PROVISIONED' });
  });

  it('a stuck random source fails closed: the repeated nonce is refused as a replay', () => {
    const t = makeBox(undefined, (n) => new Uint8Array(n).fill(9));
    t.box.provision({ id: ID, demo: true, pin: key.pin });
    t.hw.trip();
    t.box.nonce();
    expect(t.box.rearm(ticketFor('09'.repeat(16))).ok).toBe(true);
    t.hw.trip();
    expect(t.box.nonce()).toEqual({ ok: true, value: '09'.repeat(16) });
    expect(t.box.rearm(ticketFor('09'.repeat(16), T0 + 1))).toEqual({ ok: false, code: 'NONCE_REPLAYED' });
  });

  it('runs on memoryStorage, the generic in-memory backend', () => {
    const storage = memoryStorage();
    const lines: string[] = [];
    let tamper = () => {};
    const box = createBox({
      storage,
      randomBytes: (n) => new Uint8Array(n).fill(7),
      now: () => T0 + 0.9,
      onTamper: (h) => void (tamper = h),
      print: (l) => void lines.push(l),
    }, nobleP256);
    box.provision({ id: ID, demo: true, pin: key.pin });
    tamper();
    expect(box.nonce()).toEqual({ ok: true, value: '07'.repeat(16) });
    expect(JSON.parse(storage.records[BOX_RECORD_NAME]).since).toBe(T0);
  });
});
