/**
 * The server's re-arm public key as pinned into a box at provisioning: PEM (SPKI) → raw P-256
 * point, and the key fingerprint = SHA-256 of the SPKI DER, lowercase hex. The Node-side API
 * (`@noble/curves`); the box-side parsing it wraps is {@link ./pin-parse.ts}.
 *
 * @see docs/appliance.md (`GET /api/roost/rearm-public-key` → `{alg:'ES256', publicKeyPem, fingerprint}`)
 */
import { p256 } from '@noble/curves/nist.js';
import { base64Encode, fromHex, toHex } from './bytes.ts';
import { nobleP256 } from './p256-noble.ts';
import { fingerprintOf, readPem, readSpki, SPKI_UNCOMPRESSED_PREFIX, type PinnedKey } from './pin-parse.ts';

export type { PinnedKey };

/** Thrown when a key is not a P-256 public key in SPKI form. `code` is `INVALID_PIN`. */
export class PinError extends Error {
  /** Refusal code the box prints. */
  static readonly code = 'INVALID_PIN';
  /** Same as the static code, for `catch (e) { e.code }`. */
  readonly code = 'INVALID_PIN';
}

/**
 * Fingerprint of a public key: SHA-256 over the SPKI DER bytes, lowercase hex.
 * @param spki - SPKI DER bytes
 * @returns 64 lowercase hex characters
 */
export function keyFingerprint(spki: Uint8Array): string {
  return fingerprintOf(spki, nobleP256);
}

function orThrow(r: PinnedKey | string): PinnedKey {
  if (typeof r === 'string') throw new PinError(r);
  return r;
}

/**
 * Parse a P-256 SPKI DER and check that the point lies on the curve.
 * @param spki - SPKI DER bytes
 * @throws PinError when the bytes are not a P-256 SPKI or the point is invalid
 */
export function pinFromSpki(spki: Uint8Array): PinnedKey {
  return orThrow(readSpki(spki, nobleP256));
}

/**
 * Parse a `-----BEGIN PUBLIC KEY-----` PEM holding a P-256 key.
 * @param pem - PEM text; anything around the one block is ignored
 * @throws PinError when there is no such block or it is not a P-256 key
 */
export function pinFromPem(pem: string): PinnedKey {
  return orThrow(readPem(pem, nobleP256));
}

/**
 * Wrap a P-256 point into SPKI DER (uncompressed form, as OpenSSL writes it).
 * @param publicKey - SEC1 point bytes, either form
 * @throws PinError when the point is invalid
 */
export function spkiFromPoint(publicKey: Uint8Array): Uint8Array {
  let raw: Uint8Array;
  try {
    raw = p256.Point.fromBytes(publicKey).toBytes(false);
  } catch (e) {
    throw new PinError('point is not on P-256');
  }
  return fromHex(SPKI_UNCOMPRESSED_PREFIX + toHex(raw));
}

/**
 * PEM (`PUBLIC KEY`, SPKI) for a P-256 point, lines of 64 characters.
 * @param publicKey - SEC1 point bytes
 * @throws PinError when the point is invalid
 */
export function pemFromPoint(publicKey: Uint8Array): string {
  const b64 = base64Encode(spkiFromPoint(publicKey));
  let body = '';
  for (let i = 0; i < b64.length; i += 64) body += b64.substring(i, i + 64) + '\n';
  return '-----BEGIN PUBLIC KEY-----\n' + body + '-----END PUBLIC KEY-----\n';
}

/** Body of `GET /api/roost/rearm-public-key`. */
export interface RearmPublicKeyDocument {
  /** Always `ES256`. */
  alg: 'ES256';
  /** SPKI PEM of the re-arm public key. */
  publicKeyPem: string;
  /** SHA-256 of the SPKI DER, 64 lowercase hex. */
  fingerprint: string;
}

/**
 * The public-key document the server answers and `aerie box init --pin <url>` pins.
 * @param publicKey - SEC1 point bytes of the server's re-arm key (e.g. `p256.getPublicKey(secret)`)
 * @returns `{alg:'ES256', publicKeyPem, fingerprint}`
 * @throws PinError when the point is invalid
 */
export function rearmPublicKeyDocument(publicKey: Uint8Array): RearmPublicKeyDocument {
  const publicKeyPem = pemFromPoint(publicKey);
  return { alg: 'ES256', publicKeyPem, fingerprint: keyFingerprint(spkiFromPoint(publicKey)) };
}
