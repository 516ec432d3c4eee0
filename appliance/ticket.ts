/**
 * Parse and verify a re-arm ticket on the box. Platform-free: no `Buffer`, no `TextDecoder`.
 *
 * Order of checks (each failure has its own code, see {@link REFUSALS}):
 * 1. shape: one `.`, two canonical unpadded base64url parts, a 64-byte signature (`MALFORMED`);
 * 2. ECDSA P-256 / SHA-256 signature over the payload bytes as received, pinned key (`BAD_SIGNATURE`),
 *    checked by the injected {@link P256Suite} (`@noble/curves` in Node, `elliptic` on the board);
 * 3. payload is strict UTF-8 JSON with exactly the v1 keys (`MALFORMED`);
 * 4. `v` is 1 (`WRONG_VERSION`), `typ` is `roost-rearm` (`WRONG_TYPE`), `exp = iat + 600` (`BAD_LIFETIME`);
 * 5. `box` is this box (`WRONG_BOX`);
 * 6. `iat - tolerance ≤ now ≤ exp + tolerance` (`NOT_YET_VALID`, `EXPIRED`).
 * The nonce is judged by the state machine ({@link ./box.ts}), which owns the issued and used nonces.
 *
 * @see docs/appliance.md
 */
import { base64urlDecode, utf8Decode } from './bytes.ts';
import type { P256Suite } from './p256.ts';
import { REFUSALS, type RefusalCode } from './refusal-codes.ts';
import {
  CLOCK_TOLERANCE_SECONDS,
  MAX_TICKET_LENGTH,
  SIGNATURE_BYTES,
  TICKET_LIFETIME_SECONDS,
  TICKET_TYPE,
  TICKET_VERSION,
  asRearmPayload,
  type RearmPayload,
} from './ticket-format.ts';

export { REFUSALS, type RefusalCode };

/** A ticket split into its two decoded parts. */
export interface TicketParts {
  /** The payload bytes exactly as received (what the signature covers). */
  payloadBytes: Uint8Array;
  /** The 64-byte `r‖s` signature. */
  signature: Uint8Array;
}

/** What the verifier needs to know about the box. */
export interface VerifyContext {
  /** The pinned P-256 public key, SEC1 point bytes (65 uncompressed or 33 compressed). */
  publicKey: Uint8Array;
  /** This box's id. */
  boxId: string;
  /** The box clock, Unix seconds. */
  now: number;
  /** Clock tolerance in seconds, each way; default {@link CLOCK_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /**
   * The signature verifier (accepts high-S, as ES256 generally does: the issuer may be OpenSSL
   * rather than noble; refuses r or s of 0 or ≥ n), e.g. `nobleP256` or `ellipticP256`.
   */
  p256: P256Suite;
}

/** Result of {@link verifyTicket}: the payload, or the first refusal code. */
export type TicketVerdict = { ok: true; payload: RearmPayload } | { ok: false; code: RefusalCode };

/**
 * Split a ticket into payload bytes and signature without judging the content.
 * @param ticket - `base64url(payload).base64url(signature)`
 * @returns the parts, or `null` when the text is not that shape or the signature is not 64 bytes
 */
export function splitTicket(ticket: string): TicketParts | null {
  if (typeof ticket !== 'string' || ticket.length > MAX_TICKET_LENGTH) return null;
  const dot = ticket.indexOf('.');
  if (dot <= 0 || dot === ticket.length - 1 || ticket.indexOf('.', dot + 1) >= 0) return null;
  try {
    const payloadBytes = base64urlDecode(ticket.substring(0, dot));
    const signature = base64urlDecode(ticket.substring(dot + 1));
    if (signature.length !== SIGNATURE_BYTES) return null;
    return { payloadBytes, signature };
  } catch (e) {
    return null;
  }
}

function fail(code: RefusalCode): TicketVerdict {
  return { ok: false, code };
}

/**
 * Verify a re-arm ticket against the pinned key, the box id and the clock.
 * Never throws: every failure is a {@link TicketVerdict} with a code from {@link REFUSALS}.
 * @param ticket - the ticket text as typed or received (not trimmed, not re-encoded)
 * @param ctx - pinned key, box id, clock (seconds), tolerance (seconds) and the P-256 suite
 * @example
 * const v = verifyTicket(t, { publicKey, boxId: 'DEMO-0001', now: 1767225600, p256: nobleP256 });
 * if (!v.ok) console.log(v.code);
 */
export function verifyTicket(ticket: string, ctx: VerifyContext): TicketVerdict {
  const parts = splitTicket(ticket);
  if (!parts) return fail('MALFORMED');
  if (!ctx.p256.verify(parts.signature, parts.payloadBytes, ctx.publicKey)) return fail('BAD_SIGNATURE');
  let payload: RearmPayload | null = null;
  try {
    payload = asRearmPayload(JSON.parse(utf8Decode(parts.payloadBytes)));
  } catch (e) {
    payload = null;
  }
  if (!payload) return fail('MALFORMED');
  if (payload.v !== TICKET_VERSION) return fail('WRONG_VERSION');
  if (payload.typ !== TICKET_TYPE) return fail('WRONG_TYPE');
  if (payload.exp !== payload.iat + TICKET_LIFETIME_SECONDS) return fail('BAD_LIFETIME');
  if (payload.box !== ctx.boxId) return fail('WRONG_BOX');
  const tolerance = ctx.toleranceSeconds === undefined ? CLOCK_TOLERANCE_SECONDS : ctx.toleranceSeconds;
  const now = Math.floor(ctx.now);
  if (now < payload.iat - tolerance) return fail('NOT_YET_VALID');
  if (now > payload.exp + tolerance) return fail('EXPIRED');
  return { ok: true, payload };
}
