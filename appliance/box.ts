/**
 * The signing box state machine, over a {@link BoxHardware}.
 *
 * ```
 *  provision ──▶ armed ──(tamper)──▶ erased ──(demo: nonce, then one valid ticket)──▶ armed
 *                                      │
 *                                      └── production: stays erased forever
 * ```
 * Every command prints one or more lines on the box output and returns a {@link BoxResult};
 * refusals print `REFUSED <CODE>: <text>` (codes in {@link REFUSALS}). Nothing here throws.
 *
 * @see docs/appliance.md
 */
import { fromHex, toHex } from './bytes.ts';
import { loadRecord, saveRecord, type BoxMode, type BoxRecord, type BoxState } from './box-record.ts';
import type { BoxHardware } from './hardware.ts';
import type { P256Suite } from './p256.ts';
import type { PinnedKey } from './pin.ts';
import { refusalLine, REFUSALS, type RefusalCode } from './refusal-codes.ts';
import { BOX_ID_PATTERN } from './ticket-format.ts';
import { verifyTicket } from './ticket.ts';

export { REFUSALS, type RefusalCode, type BoxMode, type BoxState };

/** What `status` reports. */
export interface BoxStatus {
  /** Box id. */
  id: string;
  /** `demo` or `production`. */
  mode: BoxMode;
  /** `armed` or `erased`. */
  state: BoxState;
  /** Fingerprint of the pinned key, 64 lowercase hex. */
  fingerprint: string;
  /** Outstanding nonce, or `null`. */
  nonce: string | null;
  /** When the box entered its state, Unix seconds. */
  since: number;
}

/** Outcome of a box command: a value, or the refusal code the box printed. */
export type BoxResult<T> = { ok: true; value: T } | { ok: false; code: RefusalCode };

/** What provisioning needs. */
export interface ProvisionInput {
  /** Box id, 4-40 characters of `A-Z 0-9 -`. */
  id: string;
  /** `true` for a demo box (re-armable), `false` for a production box. */
  demo: boolean;
  /** The server's re-arm public key, see {@link ./pin.ts}. */
  pin: PinnedKey;
}

/** The box's commands. */
export interface Box {
  /** Give the box its id and pinned key; it starts `armed`. Refuses `ALREADY_PROVISIONED`, `INVALID_BOX_ID`. */
  provision(input: ProvisionInput): BoxResult<BoxStatus>;
  /** Report id, mode, state, key fingerprint and outstanding nonce. Refuses `NOT_PROVISIONED`. */
  status(): BoxResult<BoxStatus>;
  /** The tamper input tripped: wipe the secret slot and any outstanding nonce; state `erased`. */
  tamper(): BoxResult<BoxStatus>;
  /**
   * Issue the re-arm nonce (32 lowercase hex from the hardware RNG), persisted before it is shown.
   * Asking again returns the same outstanding nonce. Refuses `NOT_ERASED`, `PRODUCTION_BOX`.
   */
  nonce(): BoxResult<string>;
  /**
   * Re-arm with a ticket: verified per {@link verifyTicket}, then the nonce must be the outstanding
   * one and unused. On success the nonce is spent and the box is `armed` with a fresh secret slot.
   */
  rearm(ticket: string): BoxResult<BoxStatus>;
}

function statusOf(r: BoxRecord): BoxStatus {
  return { id: r.id, mode: r.mode, state: r.state, fingerprint: r.fingerprint, nonce: r.nonce, since: r.since };
}

/**
 * Build the box over its hardware and attach the tamper input.
 * @param hw - storage, RNG, clock (seconds), tamper input and output
 * @param p256 - the ticket signature verifier: `nobleP256` (Node) or `ellipticP256` (Espruino, no BigInt)
 * @returns the box commands; state lives only in `hw.storage`
 * @example
 * const box = createBox(hw, nobleP256);
 * box.nonce();            // prints "NONCE 3f…"
 * box.rearm(ticketText);  // prints "ARMED DEMO-0001" or "REFUSED <CODE>: …"
 */
export function createBox(hw: BoxHardware, p256: P256Suite): Box {
  const now = () => Math.floor(hw.now());
  const refuse = (code: RefusalCode): { ok: false; code: RefusalCode } => {
    hw.print(refusalLine(code));
    return { ok: false, code };
  };
  const freshSlot = () => toHex(hw.randomBytes(32));

  const box: Box = {
    provision(input) {
      if (loadRecord(hw.storage)) return refuse('ALREADY_PROVISIONED');
      if (typeof input.id !== 'string' || !BOX_ID_PATTERN.test(input.id)) return refuse('INVALID_BOX_ID');
      const r: BoxRecord = {
        v: 1,
        id: input.id,
        mode: input.demo ? 'demo' : 'production',
        state: 'armed',
        key: toHex(input.pin.publicKey),
        fingerprint: input.pin.fingerprint,
        nonce: null,
        spent: [],
        slot: freshSlot(),
        since: now(),
      };
      saveRecord(hw.storage, r);
      hw.print('PROVISIONED ' + r.id + ' ' + r.mode + ' key ' + r.fingerprint);
      return { ok: true, value: statusOf(r) };
    },

    status() {
      const r = loadRecord(hw.storage);
      if (!r) return refuse('NOT_PROVISIONED');
      hw.print('BOX ' + r.id + ' ' + r.mode + ' ' + r.state + ' since ' + r.since + ' key ' + r.fingerprint);
      if (r.nonce) hw.print('NONCE ' + r.nonce);
      return { ok: true, value: statusOf(r) };
    },

    tamper() {
      const r = loadRecord(hw.storage);
      if (!r) return refuse('NOT_PROVISIONED');
      if (r.state !== 'erased') r.since = now();
      r.state = 'erased';
      r.slot = null;
      r.nonce = null;
      saveRecord(hw.storage, r);
      hw.print('TAMPER ' + r.id + ' erased');
      return { ok: true, value: statusOf(r) };
    },

    nonce() {
      const r = loadRecord(hw.storage);
      if (!r) return refuse('NOT_PROVISIONED');
      if (r.state !== 'erased') return refuse('NOT_ERASED');
      if (r.mode !== 'demo') return refuse('PRODUCTION_BOX');
      if (!r.nonce) {
        // Persist before showing it: a nonce on the display always exists in storage.
        r.nonce = toHex(hw.randomBytes(16));
        saveRecord(hw.storage, r);
      }
      hw.print('NONCE ' + r.nonce);
      return { ok: true, value: r.nonce };
    },

    rearm(ticket) {
      const r = loadRecord(hw.storage);
      if (!r) return refuse('NOT_PROVISIONED');
      if (r.state !== 'erased') return refuse('NOT_ERASED');
      if (r.mode !== 'demo') return refuse('PRODUCTION_BOX');
      const t = now();
      const verdict = verifyTicket(ticket, { publicKey: fromHex(r.key), boxId: r.id, now: t, p256 });
      if (!verdict.ok) return refuse(verdict.code);
      const n = verdict.payload.nonce;
      if (r.spent.indexOf(n) >= 0) return refuse('NONCE_REPLAYED');
      if (!r.nonce) return refuse('NO_NONCE_ISSUED');
      if (n !== r.nonce) return refuse('NONCE_MISMATCH');
      r.spent.push(n);
      r.nonce = null;
      r.state = 'armed';
      r.slot = freshSlot();
      r.since = t;
      saveRecord(hw.storage, r);
      hw.print('ARMED ' + r.id + ' by ' + verdict.payload.by + ' for ' + verdict.payload.org);
      return { ok: true, value: statusOf(r) };
    },
  };
  hw.onTamper(() => {
    box.tamper();
  });
  return box;
}
