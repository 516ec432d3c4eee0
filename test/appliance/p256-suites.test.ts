/**
 * The two P-256 suites behind the box's one interface: `nobleP256` (Node, BigInt) and
 * `ellipticP256` (Espruino, elliptic + bn.js + hash.js, no BigInt) give the same answers on the
 * same vectors, and both agree with Node's crypto (OpenSSL): signatures made by noble and by
 * `crypto.sign` with `dsaEncoding: 'ieee-p1363'`, high-S signatures (accepted), r or s of 0 or
 * ≥ n (refused), altered bytes and other keys (refused).
 */
import { createHash, randomBytes, sign as nodeSign } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { describe, expect, it } from 'vitest';
import { ellipticP256, P256_DOMAIN } from '../../appliance/p256-elliptic.ts';
import { nobleP256 } from '../../appliance/p256-noble.ts';
import type { P256Suite } from '../../appliance/p256.ts';
import { makeKey } from './helpers.ts';

const SUITES: Array<[string, P256Suite]> = [
  ['noble', nobleP256],
  ['elliptic', ellipticP256],
];
const N = p256.Point.CURVE().n;
const P = p256.Point.CURVE().p;
const big = (b: Uint8Array) => BigInt('0x' + (Buffer.from(b).toString('hex') || '0'));
const bytes32 = (v: bigint) => Uint8Array.from(Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));
const rs = (r: bigint, s: bigint) => Uint8Array.from([...bytes32(r), ...bytes32(s)]);
const split = (sig: Uint8Array) => [big(sig.subarray(0, 32)), big(sig.subarray(32))] as const;

const key = makeKey();
const other = makeKey();
const msg = Buffer.from('{"v":1,"typ":"roost-rearm","box":"DEMO-0001"}', 'utf8');
const nobleSig = p256.sign(msg, key.secretKey, { prehash: true });
const nodeSig = Uint8Array.from(nodeSign('sha256', msg, { key: key.nodePrivate, dsaEncoding: 'ieee-p1363' }));
const [r0, s0] = split(nobleSig);
const uncompressed = p256.Point.fromBytes(key.publicKey).toBytes(false);
const compressed = p256.Point.fromBytes(key.publicKey).toBytes(true);

describe('ellipticP256 uses the published P-256 domain parameters', () => {
  it('equals @noble/curves p256 (p, a, b, n, G)', () => {
    const h = (s: string) => BigInt('0x' + s.replace(/ /g, ''));
    const c = p256.Point.CURVE();
    expect([h(P256_DOMAIN.p), h(P256_DOMAIN.a), h(P256_DOMAIN.b), h(P256_DOMAIN.n), h(P256_DOMAIN.gx), h(P256_DOMAIN.gy)]).toEqual([
      c.p, c.a, c.b, c.n, c.Gx, c.Gy,
    ]);
  });
});

describe.each(SUITES)('%s suite', (_name, suite) => {
  it('SHA-256 equals Node crypto at block boundaries', () => {
    for (const len of [0, 1, 55, 56, 63, 64, 65, 200, 1000]) {
      const data = randomBytes(len);
      expect(Buffer.from(suite.sha256(data)).toString('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('accepts a noble signature and a Node crypto (ieee-p1363) signature, compressed or uncompressed key', () => {
    for (const pub of [uncompressed, compressed]) {
      expect(suite.verify(nobleSig, msg, pub)).toBe(true);
      expect(suite.verify(nodeSig, msg, pub)).toBe(true);
    }
  });

  it('accepts high-S signatures (s and n - s both verify)', () => {
    expect(suite.verify(rs(r0, N - s0), msg, key.publicKey)).toBe(true);
    const [rn, sn] = split(nodeSig);
    expect(suite.verify(rs(rn, N - sn), msg, key.publicKey)).toBe(true);
  });

  it('refuses r or s of 0 or >= n, including r + n and s + n', () => {
    const bad = [rs(0n, s0), rs(r0, 0n), rs(N, s0), rs(r0, N), rs(N + 1n, s0), rs(r0, 2n ** 256n - 1n), rs(0n, 0n)];
    if (r0 + N < 2n ** 256n) bad.push(rs(r0 + N, s0));
    if (s0 + N < 2n ** 256n) bad.push(rs(r0, s0 + N));
    for (const sig of bad) expect(suite.verify(sig, msg, key.publicKey)).toBe(false);
  });

  it('refuses an altered signature, an altered message, another key and a bad length', () => {
    for (const i of [0, 31, 32, 63]) {
      const sig = Uint8Array.from(nobleSig);
      sig[i] ^= 0x01;
      expect(suite.verify(sig, msg, key.publicKey)).toBe(false);
    }
    const m = Buffer.from(msg);
    m[5] ^= 0x20;
    expect(suite.verify(nobleSig, m, key.publicKey)).toBe(false);
    expect(suite.verify(nobleSig, msg, other.publicKey)).toBe(false);
    expect(suite.verify(nobleSig.subarray(0, 63), msg, key.publicKey)).toBe(false);
    expect(suite.verify(Uint8Array.from([...nobleSig, 0]), msg, key.publicKey)).toBe(false);
  });

  it('checks public keys: on the curve, coordinates below p, SEC1 tags 02/03/04 only', () => {
    expect(suite.isPoint(uncompressed)).toBe(true);
    expect(suite.isPoint(compressed)).toBe(true);
    const offCurve = Uint8Array.from(uncompressed);
    offCurve[64] ^= 1;
    const hybrid = Uint8Array.from(uncompressed);
    hybrid[0] = uncompressed[64] & 1 ? 7 : 6;
    const xTooBig = Uint8Array.from([4, ...bytes32(P), ...uncompressed.subarray(33)]);
    const badX = Uint8Array.from([2, ...bytes32(P - 1n)]);
    const cases = [offCurve, hybrid, xTooBig, new Uint8Array(65), Uint8Array.from([4]), uncompressed.subarray(0, 64), Uint8Array.from([5, ...compressed.subarray(1)])];
    for (const c of cases) expect(suite.isPoint(c)).toBe(false);
    // the verifier refuses what isPoint refuses
    expect(suite.verify(nobleSig, msg, offCurve)).toBe(false);
    // x = p - 1 (compressed): not on the curve unless x³ + ax + b is a square; both suites agree
    expect(suite.isPoint(badX)).toBe(nobleP256.isPoint(badX));
  });

  it('agrees with Node crypto on 40 random keys and messages', () => {
    for (let i = 0; i < 40; i++) {
      const k = makeKey();
      const m = randomBytes(i * 7);
      const sig = Uint8Array.from(nodeSign('sha256', m, { key: k.nodePrivate, dsaEncoding: 'ieee-p1363' }));
      expect(suite.verify(sig, m, k.publicKey)).toBe(true);
      const wrong = Uint8Array.from(sig);
      wrong[i % 64] ^= 1 << i % 8;
      expect(suite.verify(wrong, m, k.publicKey)).toBe(false);
    }
  });
});
