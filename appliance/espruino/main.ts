/**
 * Espruino entry: wires the box to the board and exposes its commands on the serial console as
 * the global `roost` (the bundle is built with `globalName: 'roost'`):
 *
 * ```
 * roost.provision("DEMO-0001", true, "-----BEGIN PUBLIC KEY-----…", "<fingerprint>")  // once
 * roost.status()
 * roost.nonce()
 * roost.rearm("<ticket>")
 * ```
 * The tamper switch is the board button `BTN` (rising edge). At boot the box prints its status.
 */
import { createBox, type BoxResult, type BoxStatus } from '../box.ts';
import { ellipticP256 } from '../p256-elliptic.ts';
import { readPem } from '../pin-parse.ts';
import { refusalLine } from '../refusal-codes.ts';
import { espruinoHardware } from './hardware.ts';

/** The tamper input: the board's button `BTN` (`BTN1`, the only button, on Bangle.js 2, see board.json). */
declare const BTN: unknown;

const hw = espruinoHardware(typeof BTN === 'undefined' ? undefined : BTN);
// Espruino has no BigInt: the board verifies with elliptic/bn.js/hash.js (ES5), not noble.
const box = createBox(hw, ellipticP256);

/**
 * Provision the box (once): id, demo or production, and the server's re-arm public key PEM.
 * @param id - box id, 4-40 characters of `A-Z 0-9 -`
 * @param demo - `true` for a re-armable demo box
 * @param pem - `-----BEGIN PUBLIC KEY-----` PEM (newlines optional)
 * @param fingerprint - optional expected key fingerprint; a different key is refused `INVALID_PIN`
 */
export function provision(id: string, demo: boolean, pem: string, fingerprint?: string): BoxResult<BoxStatus> {
  const pin = readPem(pem, ellipticP256);
  if (typeof pin === 'string') {
    hw.print(refusalLine('INVALID_PIN'));
    return { ok: false, code: 'INVALID_PIN' };
  }
  if (fingerprint !== undefined && fingerprint.toLowerCase() !== pin.fingerprint) {
    hw.print(refusalLine('INVALID_PIN'));
    return { ok: false, code: 'INVALID_PIN' };
  }
  return box.provision({ id, demo: demo === true, pin });
}

/** Print and return the box status. */
export function status(): BoxResult<BoxStatus> {
  return box.status();
}

/** Print and return the re-arm nonce (erased demo box only). */
export function nonce(): BoxResult<string> {
  return box.nonce();
}

/**
 * Re-arm with a ticket.
 * @param ticket - the ticket text exactly as issued
 */
export function rearm(ticket: string): BoxResult<BoxStatus> {
  return box.rearm(ticket);
}

/** Trip the tamper input from the console (same as the switch). */
export function tamper(): BoxResult<BoxStatus> {
  return box.tamper();
}

box.status();
