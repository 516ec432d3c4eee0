/**
 * Issue a re-arm ticket (server side; pure, so the server route and the tests share it).
 *
 * @see docs/appliance.md
 */
import { p256 } from '@noble/curves/nist.js';
import { base64urlEncode, utf8Encode } from './bytes.ts';
import {
  BOX_ID_PATTERN,
  NONCE_PATTERN,
  TICKET_LIFETIME_SECONDS,
  TICKET_TYPE,
  TICKET_VERSION,
  payloadJson,
  type RearmPayload,
} from './ticket-format.ts';

/** What the server vouches for in a ticket. */
export interface RearmTicketClaims {
  /** Box id, 4-40 characters of `A-Z 0-9 -`. */
  box: string;
  /** The nonce the box showed, 32 lowercase hex. */
  nonce: string;
  /** Organization slug the owner acted for. */
  org: string;
  /** The owner's user id. */
  by: string;
  /** Issued at, whole Unix seconds. */
  iat: number;
}

/** An issued ticket. */
export interface IssuedTicket {
  /** `base64url(payload).base64url(signature)`, no padding. */
  ticket: string;
  /** `iat + 600`, Unix seconds (the payload's `exp`). */
  expiresAt: number;
}

/**
 * Thrown for claims the spec does not allow. `code` is `INVALID_REARM_REQUEST`, the code the
 * server answers with (400) for a malformed box or nonce; `field` names the bad claim.
 */
export class TicketClaimsError extends Error {
  /** The spec's error code. */
  static readonly code = 'INVALID_REARM_REQUEST';
  /** Same as the static code. */
  readonly code = 'INVALID_REARM_REQUEST';
  /**
   * @param field - the offending claim (`box`, `nonce`, `org`, `by`, `iat` or `privateKey`)
   */
  constructor(readonly field: string) {
    super('invalid re-arm claim: ' + field);
    this.name = 'TicketClaimsError';
  }
}

/**
 * Sign a re-arm ticket: payload `{v:1, typ:'roost-rearm', box, nonce, org, by, iat, exp}` as
 * UTF-8 JSON in that key order, `exp = iat + 600`; ECDSA P-256 over SHA-256 of those bytes
 * (RFC 6979 deterministic k, low-S), encoded as 64-byte `r‖s`.
 * @param claims - box, nonce, org, by and `iat` (whole Unix seconds)
 * @param privateKey - the P-256 secret scalar, 32 bytes big-endian (JWK `d` decoded)
 * @returns the ticket and its expiry in Unix seconds
 * @throws TicketClaimsError when a claim is malformed or the key is not a valid P-256 scalar
 * @example
 * const { ticket, expiresAt } = issueTicket(
 *   { box: 'DEMO-0001', nonce, org: 'acme', by: userId, iat: Math.floor(Date.now() / 1000) },
 *   secretKey,
 * );
 */
export function issueTicket(claims: RearmTicketClaims, privateKey: Uint8Array): IssuedTicket {
  if (typeof claims.box !== 'string' || !BOX_ID_PATTERN.test(claims.box)) throw new TicketClaimsError('box');
  if (typeof claims.nonce !== 'string' || !NONCE_PATTERN.test(claims.nonce)) throw new TicketClaimsError('nonce');
  if (typeof claims.org !== 'string' || claims.org.length === 0) throw new TicketClaimsError('org');
  if (typeof claims.by !== 'string' || claims.by.length === 0) throw new TicketClaimsError('by');
  if (!Number.isSafeInteger(claims.iat) || claims.iat < 0) throw new TicketClaimsError('iat');
  if (!(privateKey instanceof Uint8Array) || !p256.utils.isValidSecretKey(privateKey)) {
    throw new TicketClaimsError('privateKey');
  }
  const payload: RearmPayload = {
    v: TICKET_VERSION,
    typ: TICKET_TYPE,
    box: claims.box,
    nonce: claims.nonce,
    org: claims.org,
    by: claims.by,
    iat: claims.iat,
    exp: claims.iat + TICKET_LIFETIME_SECONDS,
  };
  const payloadBytes = utf8Encode(payloadJson(payload));
  const signature = p256.sign(payloadBytes, privateKey, { prehash: true, lowS: true, format: 'compact' });
  return { ticket: base64urlEncode(payloadBytes) + '.' + base64urlEncode(signature), expiresAt: payload.exp };
}
