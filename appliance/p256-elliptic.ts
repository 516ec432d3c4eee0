/**
 * {@link P256Suite} without `BigInt`, for the Espruino board: the curve arithmetic is the
 * `elliptic` library's short-Weierstrass curve over `bn.js` (26-bit limbs in plain numbers), and
 * SHA-256 is `hash.js`. All three are ES5. Only `elliptic/lib/elliptic/curve/short` is imported,
 * not `elliptic` itself, so the bundle carries neither the other curves, nor the precomputed
 * secp256k1 tables, nor the signing code (HMAC-DRBG, `brorand`).
 *
 * Not using `elliptic`'s `ec` class is deliberate: its constructor precomputes ~320 multiples of
 * G (`g.precompute()`), thousands of `bn.js` objects, more than a Pico's ~5,100 variables. Here the
 * verification is SEC 1 §4.1.4 on the library's point operations, with no precomputation: the
 * only code of ours is the range checks and the equation `R = u1·G + u2·Q`, `R.x mod n = r`.
 *
 * Cross-checked against `@noble/curves` and Node's `crypto` in test/appliance/p256-suites.test.ts.
 */
import BN from 'bn.js';
import ShortCurve from 'elliptic/lib/elliptic/curve/short.js';
import SHA256 from 'hash.js/lib/hash/sha/256.js';
import type { P256Suite } from './p256.ts';

/**
 * P-256 (secp256r1) domain parameters, as published in SEC 2 v2 §2.4.2 and FIPS 186-4 D.1.2.3;
 * the test suite compares them with `@noble/curves`' `p256`.
 */
export const P256_DOMAIN = {
  p: 'ffffffff 00000001 00000000 00000000 00000000 ffffffff ffffffff ffffffff',
  a: 'ffffffff 00000001 00000000 00000000 00000000 ffffffff ffffffff fffffffc',
  b: '5ac635d8 aa3a93e7 b3ebbd55 769886bc 651d06b0 cc53b0f6 3bce3c3e 27d2604b',
  n: 'ffffffff 00000000 ffffffff ffffffff bce6faad a7179e84 f3b9cac2 fc632551',
  gx: '6b17d1f2 e12c4247 f8bce6e5 63a440f2 77037d81 2deb33a0 f4a13945 d898c296',
  gy: '4fe342e2 fe1a7f9b 8ee7eb4a 7c0f9e16 2bce3357 6b315ece cbb64068 37bf51f5',
};

let curve: ShortCurve | null = null;

/** The curve, built on first use (it is a few dozen bn.js objects; nothing is precomputed). */
function p256Curve(): ShortCurve {
  if (!curve) {
    const d = P256_DOMAIN;
    curve = new ShortCurve({ p: d.p, a: d.a, b: d.b, n: d.n, g: [d.gx, d.gy], gRed: false, prime: null });
  }
  return curve;
}

/** Big-endian bytes `[from, to)` of `bytes` as a BN. */
function bnOf(bytes: Uint8Array, from: number, to: number): BN {
  const a: number[] = [];
  for (let i = from; i < to; i++) a.push(bytes[i]);
  return new BN(a);
}

type Point = ReturnType<ShortCurve['point']>;

/** SEC1 bytes → a point on P-256 other than infinity, or `null`. */
function decodePoint(c: ShortCurve, bytes: Uint8Array): Point | null {
  if (!bytes || (bytes.length !== 65 && bytes.length !== 33)) return null;
  const tag = bytes[0];
  if (bytes.length === 65 ? tag !== 4 : tag !== 2 && tag !== 3) return null;
  const x = bnOf(bytes, 1, 33);
  if (x.cmp(c.p) >= 0) return null;
  let point: Point;
  if (tag === 4) {
    const y = bnOf(bytes, 33, 65);
    if (y.cmp(c.p) >= 0) return null;
    point = c.point(x, y);
  } else {
    point = c.pointFromX(x, tag === 3); // throws when x³ + ax + b has no square root
  }
  return !point.isInfinity() && c.validate(point) ? point : null;
}

function sha256(data: Uint8Array): Uint8Array {
  const digest = SHA256().update(data).digest();
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = digest[i];
  return out;
}

/** The elliptic/bn.js/hash.js suite (no BigInt; what the Espruino bundle uses). */
export const ellipticP256: P256Suite = {
  name: 'elliptic',
  sha256,
  isPoint(publicKey) {
    try {
      return decodePoint(p256Curve(), publicKey) !== null;
    } catch (e) {
      return false;
    }
  },
  verify(signature, message, publicKey) {
    try {
      if (!signature || signature.length !== 64) return false;
      const c = p256Curve();
      const q = decodePoint(c, publicKey);
      if (!q) return false;
      const r = bnOf(signature, 0, 32);
      const s = bnOf(signature, 32, 64);
      if (r.isZero() || r.cmp(c.n) >= 0 || s.isZero() || s.cmp(c.n) >= 0) return false;
      // n is 256 bits, so the SHA-256 digest is used whole (no truncation).
      const digest = sha256(message);
      const e = bnOf(digest, 0, 32);
      const w = s.invm(c.n);
      const u1 = e.mul(w).umod(c.n);
      const u2 = r.mul(w).umod(c.n);
      const R = c.g.mulAdd(u1, q, u2);
      if (R.isInfinity()) return false;
      return R.getX().umod(c.n).cmp(r) === 0;
    } catch (e) {
      return false;
    }
  },
};
