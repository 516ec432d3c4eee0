/**
 * Every reason the box can refuse a command, with the line it prints. The code is what the box
 * shows on its display or serial console (`REFUSED <CODE>: <text>`), so an owner reading the box
 * can tell exactly which check failed.
 *
 * @see docs/appliance.md
 */
export const REFUSALS = {
  /** Not `base64url(payload).base64url(signature)`, a signature that is not 64 bytes, or a payload that is not the v1 JSON shape. */
  MALFORMED: 'ticket is not a well-formed re-arm ticket',
  /** The ECDSA P-256 signature does not verify over the payload bytes with the pinned key (another key, or any altered byte). */
  BAD_SIGNATURE: 'signature does not verify with the pinned key',
  /** `v` is not 1. */
  WRONG_VERSION: 'ticket version is not 1',
  /** `typ` is not `roost-rearm`. */
  WRONG_TYPE: 'ticket type is not roost-rearm',
  /** `exp` is not exactly `iat + 600`. */
  BAD_LIFETIME: 'ticket lifetime is not 600 seconds',
  /** `box` is another box's id. */
  WRONG_BOX: 'ticket is for another box',
  /** `iat` is later than the box clock plus the tolerance. */
  NOT_YET_VALID: 'ticket is not valid yet (check the box clock)',
  /** `exp` is earlier than the box clock minus the tolerance. */
  EXPIRED: 'ticket has expired',
  /** The nonce was already used by an earlier re-arm. */
  NONCE_REPLAYED: 'nonce was already used',
  /** The box has no outstanding nonce (issue one with `nonce` first). */
  NO_NONCE_ISSUED: 'box has not issued a nonce',
  /** The nonce is not the one this box issued. */
  NONCE_MISMATCH: 'nonce is not the one this box issued',
  /** The box is armed: there is nothing to re-arm and no nonce to issue. */
  NOT_ERASED: 'box is armed, not erased',
  /** A production box stays erased after tamper; only demo boxes re-arm. */
  PRODUCTION_BOX: 'production box stays erased',
  /** The box has no identity or pinned key yet. */
  NOT_PROVISIONED: 'box is not provisioned',
  /** Provisioning a box that already has an identity and a pinned key. */
  ALREADY_PROVISIONED: 'box is already provisioned',
  /** Box id is not 4 to 40 characters of A-Z, 0-9 and `-`. */
  INVALID_BOX_ID: 'box id must be 4-40 characters of A-Z 0-9 -',
  /** The key to pin is not a P-256 public key in SPKI PEM form. */
  INVALID_PIN: 'key to pin is not a P-256 SPKI public key',
} as const;

/** One refusal code, e.g. `'EXPIRED'`. */
export type RefusalCode = keyof typeof REFUSALS;

/**
 * The line the box prints for a refusal.
 * @param code - the refusal code
 * @returns `REFUSED <CODE>: <text>`
 */
export function refusalLine(code: RefusalCode): string {
  return 'REFUSED ' + code + ': ' + REFUSALS[code];
}
