/** Shared fixtures for the appliance tests: keys, a test-double box, raw ticket signing. */
import { createPrivateKey, createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { base64urlEncode, toHex, utf8Encode } from '../../appliance/bytes.ts';
import { createBox, type Box } from '../../appliance/box.ts';
import type { BoxHardware } from '../../appliance/hardware.ts';
import { nobleP256 } from '../../appliance/p256-noble.ts';
import type { P256Suite } from '../../appliance/p256.ts';
import { pemFromPoint, pinFromPem, type PinnedKey } from '../../appliance/pin.ts';

/** A P-256 key pair in the shapes the tests need. */
export interface TestKey {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  pem: string;
  pin: PinnedKey;
  /** The same private key as a Node KeyObject (second implementation). */
  nodePrivate: KeyObject;
  nodePublic: KeyObject;
}

/** Make a fresh P-256 key pair. */
export function makeKey(): TestKey {
  const { secretKey, publicKey } = p256.keygen();
  const pem = pemFromPoint(publicKey);
  const point = p256.Point.fromBytes(publicKey);
  const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: b64u(point.toBytes(false).subarray(1, 33)),
    y: b64u(point.toBytes(false).subarray(33)),
    d: b64u(secretKey),
  };
  return {
    secretKey,
    publicKey,
    pem,
    pin: pinFromPem(pem),
    nodePrivate: createPrivateKey({ key: jwk, format: 'jwk' }),
    nodePublic: createPublicKey(pem),
  };
}

/** Start of the test clock, Unix seconds (2026-01-01T00:00:00Z). */
export const T0 = 1767225600;

/** A box on in-memory hardware with a settable clock and a counting random source. */
export interface TestBox {
  box: Box;
  hw: BoxHardware & { trip(): void };
  records: Record<string, string>;
  lines: string[];
  clock: { now: number };
}

/**
 * Build a box over memory storage; random bytes are 0x01, 0x02, … so nonces are predictable.
 * @param records - shared storage records (pass the same object to model a reboot)
 * @param random - replace the counting random source
 * @param p256 - the crypto suite the box verifies with (default noble)
 */
export function makeBox(records?: Record<string, string>, random?: (n: number) => Uint8Array, p256: P256Suite = nobleP256): TestBox {
  const recs = records ?? {};
  const lines: string[] = [];
  const clock = { now: T0 };
  let counter = 0;
  const handlers: Array<() => void> = [];
  const hw = {
    storage: {
      read: (n: string) => (n in recs ? recs[n] : undefined),
      write: (n: string, v: string) => void (recs[n] = v),
      erase: (n: string) => void delete recs[n],
    },
    randomBytes: random ?? ((len: number) => {
      const out = new Uint8Array(len);
      for (let i = 0; i < len; i++) out[i] = ++counter & 255;
      return out;
    }),
    now: () => clock.now,
    onTamper: (h: () => void) => void handlers.push(h),
    print: (line: string) => void lines.push(line),
    trip: () => handlers.forEach((h) => h()),
  };
  return { box: createBox(hw, p256), hw, records: recs, lines, clock };
}

/**
 * Sign any payload text the way the issuer does, so tests can forge well-signed but wrong tickets.
 * @param payload - object (serialized with JSON.stringify), exact text, or exact bytes
 * @param key - signing key
 */
export function signRaw(payload: object | string | Uint8Array, key: TestKey): string {
  const bytes =
    payload instanceof Uint8Array ? payload : utf8Encode(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const sig = p256.sign(bytes, key.secretKey, { prehash: true });
  return base64urlEncode(bytes) + '.' + base64urlEncode(sig);
}

/**
 * Sign with Node's crypto (IEEE P1363 `r‖s`), the second implementation.
 * @param payload - exact payload text
 * @param key - signing key
 */
export function signWithNode(payload: string, key: TestKey): string {
  const bytes = Buffer.from(payload, 'utf8');
  const sig = nodeSign('sha256', bytes, { key: key.nodePrivate, dsaEncoding: 'ieee-p1363' });
  return bytes.toString('base64url') + '.' + sig.toString('base64url');
}

/** Hex of `n` bytes 0x01, 0x02, … as produced by {@link makeBox}'s random source after `skip` bytes. */
export function countingHex(skip: number, n: number): string {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (skip + i + 1) & 255;
  return toHex(b);
}
