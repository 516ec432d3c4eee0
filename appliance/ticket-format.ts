/**
 * The re-arm ticket format shared by the issuer (server) and the verifier (box).
 *
 * Ticket: `base64url(payload) + '.' + base64url(signature)`, no padding. Payload: UTF-8 JSON
 * `{v:1, typ:'roost-rearm', box, nonce, org, by, iat, exp}` in that key order; `iat`/`exp` are Unix
 * seconds and `exp = iat + 600`. Signature: ECDSA P-256 over SHA-256 of the payload bytes, 64-byte `r‖s`.
 *
 * @see docs/appliance.md
 */

/** Value of `v`. */
export const TICKET_VERSION = 1;
/** Value of `typ`. */
export const TICKET_TYPE = 'roost-rearm';
/** `exp - iat`, in seconds (10 minutes). */
export const TICKET_LIFETIME_SECONDS = 600;
/** Allowed skew between the box clock and `iat`/`exp`, in seconds, each way. */
export const CLOCK_TOLERANCE_SECONDS = 60;
/** Box id: 4 to 40 characters of `A-Z`, `0-9`, `-`. */
export const BOX_ID_PATTERN = /^[A-Z0-9-]{4,40}$/;
/** Nonce: 32 lowercase hex characters (16 random bytes). */
export const NONCE_PATTERN = /^[0-9a-f]{32}$/;
/** Longest ticket the box will look at, in characters (a real one is about 400). */
export const MAX_TICKET_LENGTH = 2048;
/** Length of the `r‖s` signature, in bytes. */
export const SIGNATURE_BYTES = 64;

/** The signed payload of a re-arm ticket. */
export interface RearmPayload {
  /** Format version, always 1. */
  v: number;
  /** Always `roost-rearm`. */
  typ: string;
  /** Box id the ticket is for. */
  box: string;
  /** The nonce the box issued, 32 lowercase hex. */
  nonce: string;
  /** Organization the owner acted for (its slug). */
  org: string;
  /** User id of the owner who asked for the ticket. */
  by: string;
  /** Issued at, Unix seconds. */
  iat: number;
  /** Expires at, Unix seconds; `iat + 600`. */
  exp: number;
}

const KEYS = ['v', 'typ', 'box', 'nonce', 'org', 'by', 'iat', 'exp'];

function isWholeSeconds(n: unknown): boolean {
  return typeof n === 'number' && n >= 0 && n <= 9007199254740991 && Math.floor(n) === n;
}

/**
 * Check that a parsed JSON value has exactly the v1 payload keys with the right types and formats.
 * Values (`v`, `typ`, lifetime, box, time) are judged later, each with its own refusal code.
 * @param value - the result of `JSON.parse` on the payload
 * @returns the payload, or `null` when the shape is wrong
 */
export function asRearmPayload(value: unknown): RearmPayload | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length !== KEYS.length) return null;
  for (let i = 0; i < KEYS.length; i++) if (!Object.prototype.hasOwnProperty.call(o, KEYS[i])) return null;
  if (typeof o.v !== 'number' || typeof o.typ !== 'string') return null;
  if (typeof o.box !== 'string' || !BOX_ID_PATTERN.test(o.box)) return null;
  if (typeof o.nonce !== 'string' || !NONCE_PATTERN.test(o.nonce)) return null;
  if (typeof o.org !== 'string' || o.org.length === 0) return null;
  if (typeof o.by !== 'string' || o.by.length === 0) return null;
  if (!isWholeSeconds(o.iat) || !isWholeSeconds(o.exp)) return null;
  return o as unknown as RearmPayload;
}

/**
 * Serialize a payload in the spec's key order.
 * @param p - the payload
 * @returns compact JSON text (to be UTF-8 encoded and signed)
 */
export function payloadJson(p: RearmPayload): string {
  return JSON.stringify({ v: p.v, typ: p.typ, box: p.box, nonce: p.nonce, org: p.org, by: p.by, iat: p.iat, exp: p.exp });
}
