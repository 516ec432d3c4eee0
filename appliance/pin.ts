/**
 * The server's re-arm public key as pinned into a box at provisioning: PEM (SPKI) → raw P-256
 * point, and the key fingerprint = SHA-256 of the SPKI DER, lowercase hex. Platform-free.
 *
 * @see spec 02 "Signing box re-arm" (`GET /api/roost/rearm-public-key` → `{alg:'ES256', publicKeyPem, fingerprint}`)
 */
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64Decode, base64Encode, fromHex, toHex } from './bytes.ts';

/**
 * DER prefixes of a P-256 SPKI: SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING }.
 * A P-256 SPKI has exactly one encoding per point form, so a byte comparison is a full parse.
 */
const SPKI_UNCOMPRESSED_PREFIX = '3059301306072a8648ce3d020106082a8648ce3d030107034200';
const SPKI_COMPRESSED_PREFIX = '3039301306072a8648ce3d020106082a8648ce3d030107032200';

/** A pinned key. */
export interface PinnedKey {
  /** SEC1 point bytes (65 bytes uncompressed `04‖X‖Y`, or 33 compressed). */
  publicKey: Uint8Array;
  /** The SPKI DER the fingerprint is taken over. */
  spki: Uint8Array;
  /** SHA-256 of {@link PinnedKey.spki}, 64 lowercase hex characters. */
  fingerprint: string;
}

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
  return toHex(sha256(spki));
}

/**
 * Parse a P-256 SPKI DER and check that the point lies on the curve.
 * @param spki - SPKI DER bytes
 * @throws PinError when the bytes are not a P-256 SPKI or the point is invalid
 */
export function pinFromSpki(spki: Uint8Array): PinnedKey {
  const hex = toHex(spki);
  let point = '';
  if (hex.length === 182 && hex.indexOf(SPKI_UNCOMPRESSED_PREFIX) === 0) point = hex.substring(52);
  else if (hex.length === 118 && hex.indexOf(SPKI_COMPRESSED_PREFIX) === 0) point = hex.substring(52);
  else throw new PinError('not a P-256 SPKI public key');
  const publicKey = fromHex(point);
  try {
    p256.Point.fromBytes(publicKey).assertValidity();
  } catch (e) {
    throw new PinError('point is not on P-256');
  }
  return { publicKey, spki, fingerprint: keyFingerprint(spki) };
}

/**
 * Parse a `-----BEGIN PUBLIC KEY-----` PEM holding a P-256 key.
 * @param pem - PEM text; anything around the one block is ignored
 * @throws PinError when there is no such block or it is not a P-256 key
 */
export function pinFromPem(pem: string): PinnedKey {
  const m = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/.exec(String(pem));
  if (!m) throw new PinError('no PUBLIC KEY block');
  let der: Uint8Array;
  try {
    der = base64Decode(m[1]);
  } catch (e) {
    throw new PinError('PEM body is not base64');
  }
  return pinFromSpki(der);
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
