/**
 * Reading a pinned key on the box: SPKI DER or PEM → P-256 point and fingerprint (SHA-256 of the
 * SPKI DER, lowercase hex), over an injected {@link P256Suite}. Platform-free, and free of
 * classes and exceptions so that it stays plain ES5 after the Espruino build; the throwing,
 * noble-backed API for Node is {@link ./pin.ts}.
 *
 * @see docs/appliance.md
 */
import { base64Decode, toHex, fromHex } from './bytes.ts';
import type { P256Suite } from './p256.ts';

/**
 * DER prefixes of a P-256 SPKI: SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING }.
 * A P-256 SPKI has exactly one encoding per point form, so a byte comparison is a full parse.
 */
export const SPKI_UNCOMPRESSED_PREFIX = '3059301306072a8648ce3d020106082a8648ce3d030107034200';
export const SPKI_COMPRESSED_PREFIX = '3039301306072a8648ce3d020106082a8648ce3d030107032200';

/** A pinned key. */
export interface PinnedKey {
  /** SEC1 point bytes (65 bytes uncompressed `04‖X‖Y`, or 33 compressed). */
  publicKey: Uint8Array;
  /** The SPKI DER the fingerprint is taken over. */
  spki: Uint8Array;
  /** SHA-256 of {@link PinnedKey.spki}, 64 lowercase hex characters. */
  fingerprint: string;
}

/**
 * Fingerprint of a public key: SHA-256 over the SPKI DER bytes, lowercase hex.
 * @param spki - SPKI DER bytes
 * @param p256 - the crypto suite (for SHA-256)
 */
export function fingerprintOf(spki: Uint8Array, p256: P256Suite): string {
  return toHex(p256.sha256(spki));
}

/**
 * Parse a P-256 SPKI DER and check that the point lies on the curve.
 * @param spki - SPKI DER bytes
 * @param p256 - the crypto suite
 * @returns the pinned key, or the reason (text) it is not a P-256 SPKI public key
 */
export function readSpki(spki: Uint8Array, p256: P256Suite): PinnedKey | string {
  const hex = toHex(spki);
  let point = '';
  if (hex.length === 182 && hex.indexOf(SPKI_UNCOMPRESSED_PREFIX) === 0) point = hex.substring(52);
  else if (hex.length === 118 && hex.indexOf(SPKI_COMPRESSED_PREFIX) === 0) point = hex.substring(52);
  else return 'not a P-256 SPKI public key';
  const publicKey = fromHex(point);
  if (!p256.isPoint(publicKey)) return 'point is not on P-256';
  return { publicKey, spki, fingerprint: fingerprintOf(spki, p256) };
}

/**
 * Parse a `-----BEGIN PUBLIC KEY-----` PEM holding a P-256 key.
 * @param pem - PEM text; anything around the one block is ignored
 * @param p256 - the crypto suite
 * @returns the pinned key, or the reason (text) it is refused
 */
export function readPem(pem: string, p256: P256Suite): PinnedKey | string {
  const m = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/.exec(String(pem));
  if (!m) return 'no PUBLIC KEY block';
  let der: Uint8Array;
  try {
    der = base64Decode(m[1]);
  } catch (e) {
    return 'PEM body is not base64';
  }
  return readSpki(der, p256);
}
