/**
 * {@link P256Suite} on `@noble/curves` and `@noble/hashes`: the Node side (server, simulator,
 * tests). Needs `BigInt`, so the Espruino build uses {@link ./p256-elliptic.ts} instead.
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { P256Suite } from './p256.ts';

/** The noble-backed suite. */
export const nobleP256: P256Suite = {
  name: 'noble',
  sha256: (data) => sha256(data),
  isPoint(publicKey) {
    try {
      if (publicKey.length !== 33 && publicKey.length !== 65) return false;
      p256.Point.fromBytes(publicKey).assertValidity();
      return true;
    } catch (e) {
      return false;
    }
  },
  verify(signature, message, publicKey) {
    try {
      return p256.verify(signature, message, publicKey, { prehash: true, lowS: false, format: 'compact' });
    } catch (e) {
      return false;
    }
  },
};
