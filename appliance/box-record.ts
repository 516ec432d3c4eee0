/**
 * The box's persistent record: one JSON value in storage under {@link BOX_RECORD_NAME}.
 * Loading is defensive (a damaged record reads as "not provisioned" rather than throwing), because
 * the box must keep answering on its console whatever is in flash.
 */
import type { BoxStorage } from './hardware.ts';
import { BOX_ID_PATTERN, NONCE_PATTERN } from './ticket-format.ts';

/** Storage record name (Espruino allows up to 28 characters). */
export const BOX_RECORD_NAME = 'roost.box';
/** How many used nonces the box remembers, to name a replay `NONCE_REPLAYED`. */
export const SPENT_NONCES_KEPT = 16;

/** `demo` boxes may be re-armed with a ticket; `production` boxes stay erased after tamper. */
export type BoxMode = 'demo' | 'production';
/** `armed`: working, secret slot filled. `erased`: tamper tripped, secret slot wiped. */
export type BoxState = 'armed' | 'erased';

/** What the box keeps in storage. */
export interface BoxRecord {
  /** Record format version. */
  v: 1;
  /** Box id, 4-40 characters of `A-Z 0-9 -`. */
  id: string;
  /** Demo or production. */
  mode: BoxMode;
  /** Current state. */
  state: BoxState;
  /** Pinned re-arm public key, SEC1 point as lowercase hex. */
  key: string;
  /** Fingerprint of the pinned key (SHA-256 of SPKI DER, lowercase hex). */
  fingerprint: string;
  /** The outstanding nonce (32 lowercase hex), or `null`. */
  nonce: string | null;
  /** Recently used or retired nonces, newest last, at most {@link SPENT_NONCES_KEPT}. */
  spent: string[];
  /** Secret slot: 32 random bytes as hex while armed, `null` once erased. */
  slot: string | null;
  /** When the box entered its current state, Unix seconds. */
  since: number;
}

function isHex(s: unknown, len?: number): boolean {
  return typeof s === 'string' && /^[0-9a-f]*$/.test(s) && s.length % 2 === 0 && (len === undefined || s.length === len);
}

/**
 * Read the record.
 * @param storage - the box storage
 * @returns the record, or `null` when absent or damaged
 */
export function loadRecord(storage: BoxStorage): BoxRecord | null {
  const text = storage.read(BOX_RECORD_NAME);
  if (text === undefined || text === '') return null;
  let r: BoxRecord;
  try {
    r = JSON.parse(text);
  } catch (e) {
    return null;
  }
  if (!r || r.v !== 1 || typeof r.id !== 'string' || !BOX_ID_PATTERN.test(r.id)) return null;
  if (r.mode !== 'demo' && r.mode !== 'production') return null;
  if (r.state !== 'armed' && r.state !== 'erased') return null;
  if (!isHex(r.key) || !isHex(r.fingerprint, 64)) return null;
  if (r.nonce !== null && !(typeof r.nonce === 'string' && NONCE_PATTERN.test(r.nonce))) return null;
  if (!Array.isArray(r.spent) || (r.slot !== null && !isHex(r.slot, 64)) || typeof r.since !== 'number') return null;
  return r;
}

/**
 * Write the record (whole, so a power cut leaves either the old or the new value).
 * @param storage - the box storage
 * @param record - the record to persist
 */
export function saveRecord(storage: BoxStorage, record: BoxRecord): void {
  if (record.spent.length > SPENT_NONCES_KEPT) record.spent = record.spent.slice(record.spent.length - SPENT_NONCES_KEPT);
  storage.write(BOX_RECORD_NAME, JSON.stringify(record));
}
