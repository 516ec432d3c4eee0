/**
 * The few declarations the ES5 libraries used by {@link ./p256-elliptic.ts} need (they ship no
 * types, and only these members are used).
 */
declare module 'bn.js' {
  /** Arbitrary-precision integer (26-bit limbs, no BigInt). */
  class BN {
    constructor(value: number | string | ArrayLike<number>, base?: number | 'hex' | 'be' | 'le');
    cmp(other: BN): -1 | 0 | 1;
    isZero(): boolean;
    mul(other: BN): BN;
    umod(other: BN): BN;
    invm(modulus: BN): BN;
  }
  export default BN;
}

declare module 'elliptic/lib/elliptic/curve/short.js' {
  import type BN from 'bn.js';
  /** A point of a short-Weierstrass curve (affine; `inf` for the point at infinity). */
  interface ShortPoint {
    inf: boolean;
    isInfinity(): boolean;
    getX(): BN;
    mulAdd(k1: BN, p2: ShortPoint, k2: BN): ShortPoint;
  }
  /** The domain parameters, hex strings (spaces allowed), as in elliptic's curve presets. */
  interface ShortCurveConf {
    p: string;
    a: string;
    b: string;
    n: string;
    g: [string, string];
    gRed: false;
    prime: null;
  }
  /** A short-Weierstrass curve y² = x³ + ax + b over GF(p), Montgomery arithmetic (bn.js). */
  class ShortCurve {
    constructor(conf: ShortCurveConf);
    p: BN;
    n: BN;
    g: ShortPoint;
    point(x: BN, y: BN): ShortPoint;
    pointFromX(x: BN, odd: boolean): ShortPoint;
    validate(point: ShortPoint): boolean;
  }
  export default ShortCurve;
}

declare module 'hash.js/lib/hash/sha/256.js' {
  /** hash.js SHA-256 (callable without `new`). */
  interface Sha256 {
    update(data: ArrayLike<number>): Sha256;
    digest(): number[];
  }
  function SHA256(): Sha256;
  export default SHA256;
}
