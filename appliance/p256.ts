/**
 * The one seam between the box logic and its P-256 / SHA-256 implementation. The box, the ticket
 * verifier and the key pinning take a {@link P256Suite}; each target injects one:
 *
 * - Node (server, simulator, tests): {@link ./p256-noble.ts} (`@noble/curves`, uses `BigInt`);
 * - the Espruino board, which has no `BigInt`: {@link ./p256-elliptic.ts} (`elliptic` + `bn.js`,
 *   `hash.js`, all ES5).
 *
 * Both are checked against the same vectors in test/appliance/p256-suites.test.ts.
 */

/** P-256 public-key checks, ECDSA P-256/SHA-256 verification, and SHA-256. */
export interface P256Suite {
  /** Short name for reports, e.g. `noble` or `elliptic`. */
  readonly name: string;
  /**
   * SHA-256.
   * @param data - the bytes to hash
   * @returns the 32-byte digest
   */
  sha256(data: Uint8Array): Uint8Array;
  /**
   * Whether `publicKey` is a valid SEC1 encoding of a P-256 point other than infinity:
   * `04‖X‖Y` (65 bytes) or `02|03‖X` (33 bytes), coordinates below p, on the curve.
   * @param publicKey - SEC1 point bytes
   */
  isPoint(publicKey: Uint8Array): boolean;
  /**
   * Check an ECDSA P-256 signature over SHA-256 of `message`. High-S signatures are accepted
   * (ES256 issuers such as OpenSSL do not normalize S); `r` or `s` of 0 or ≥ n are refused.
   * Never throws: anything malformed is `false`.
   * @param signature - 64-byte `r‖s` (IEEE P1363)
   * @param message - the signed bytes (hashed here)
   * @param publicKey - SEC1 point bytes
   */
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
}
