/**
 * Shapes of an audit record before and after sealing. Plain data only (no Date, no class
 * instances), so a record crosses the worker-thread boundary unchanged and its canonical JSON is
 * the same in every process and language.
 *
 * @see docs/audit.md
 * @see ./README.md for the hashing rules
 */

/**
 * Who caused an audit event.
 *
 * Shape: `{ type: 'account' | 'apiKey' | 'machine' | 'agent' | 'system', id: string }`.
 * `system` is background work (sealer, retention, rollups); its `id` names the job.
 *
 * @see docs/audit.md
 */
export interface AuditActor {
  type: AuditActorType;
  id: string;
}

/**
 * The kinds of actor an audit record can name.
 *
 * @see docs/audit.md
 */
export type AuditActorType = 'account' | 'apiKey' | 'machine' | 'agent' | 'system';

/** The actor types, in a stable order, for validation. @see docs/audit.md */
export const AUDIT_ACTOR_TYPES: readonly AuditActorType[] = ['account', 'apiKey', 'machine', 'agent', 'system'];

/**
 * A JSON value as it may appear inside `businessData`.
 *
 * Numbers must be finite and, to survive a PostgreSQL `jsonb` round trip and re-hashing in
 * another language, integers must stay within ±2^53 − 1; store larger values as strings.
 * Strings must not contain `\u0000` (rejected by `jsonb`) or lone surrogates (rejected by RFC 8785).
 *
 * @see docs/audit.md
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * An audit event as the sealer receives it from the outbox, before any hash is computed.
 *
 * Shape:
 * - `id` — record id (UUID).
 * - `orgId` — organization whose chain the record joins.
 * - `seq` — position in that organization's chain: an integer, 1 for the first record, gap-free.
 * - `eventType` — dotted event name, e.g. `seal.lifecycle.registered`.
 * - `occurredAt` — when the change happened: ISO 8601 UTC with milliseconds and `Z`,
 *   exactly `YYYY-MM-DDTHH:mm:ss.sssZ` (what `Date.prototype.toISOString()` produces for
 *   years 0000–9999). Use {@link toAuditTimestamp} to produce it.
 * - `actor` — {@link AuditActor}.
 * - `appGroupId` — optional; absent (not `null`) when the event belongs to no app group.
 *   `null` is accepted on input and treated exactly like absent.
 * - `businessData` — event details; includes `_humanSeal: {credentialId, userId}` when the
 *   request passed a passkey step-up seal, and is therefore covered by the hashes.
 *
 * @see docs/audit.md (the "Human seal marker" paragraph)
 */
export interface AuditRecordInput {
  id: string;
  orgId: string;
  seq: number;
  eventType: string;
  occurredAt: string;
  actor: AuditActor;
  appGroupId?: string | null;
  businessData: { [key: string]: JsonValue };
}

/**
 * The hash fields the sealer adds to one record.
 *
 * Shape: `{ id, payloadHash, prevHash, chainHash }`, each hash 64 lowercase hex characters.
 * `prevHash` is the previous record's `chainHash` ({@link GENESIS_HASH} for `seq` 1).
 *
 * @see docs/audit.md
 */
export interface SealedHashes {
  id: string;
  payloadHash: string;
  prevHash: string;
  chainHash: string;
}

/**
 * A record with its sealing time: everything `payloadHash` covers.
 *
 * `sealedAt` — ISO 8601 UTC with milliseconds, the time of the sealing transaction (one value
 * for the whole batch, chosen by the sealer and passed to the worker, which reads no clock).
 *
 * @see docs/audit.md
 */
export interface HashableAuditRecord extends AuditRecordInput {
  sealedAt: string;
}

/**
 * An audit record as stored and exported after sealing: the input fields, `sealedAt` and the
 * three hashes. Every field except the three hashes is covered by `payloadHash`.
 *
 * @see docs/audit.md
 */
export interface SealedAuditRecord extends HashableAuditRecord {
  /**
   * The hash rules the record was sealed with: absent (or 1) for version 1 (`./chain-hash.ts`),
   * 2 for version 2 (`./chain-hash-v2.ts`, batch ingestion). Not itself hashed: each version's
   * rules give different hashes, so a changed version fails verification.
   */
  hashVersion?: 1 | 2;
  payloadHash: string;
  prevHash: string;
  chainHash: string;
}

/**
 * The state of an organization's chain after its latest sealed record.
 *
 * Shape: `{ orgId, seq, chainHash }` — the `seq` and `chainHash` of the last record; a chain
 * with no records has `seq` 0 and `chainHash` = {@link GENESIS_HASH}.
 *
 * @see docs/audit.md
 */
export interface ChainHead {
  orgId: string;
  seq: number;
  chainHash: string;
}

/**
 * The canonical audit timestamp of a moment: ISO 8601 UTC with milliseconds and `Z`.
 *
 * @param at - a Date or epoch milliseconds.
 * @returns e.g. `2026-10-16T08:30:00.000Z`.
 * @throws RangeError when the date is invalid or outside years 0000–9999.
 * @example toAuditTimestamp(new Date(0)) // '1970-01-01T00:00:00.000Z'
 * @see docs/audit.md
 */
export function toAuditTimestamp(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  // Years 0000–9999 have exactly the form; no need to test the text (an invalid time throws in toISOString).
  if (ms >= YEAR_0_MS && ms <= YEAR_9999_END_MS) return new Date(ms).toISOString();
  const iso = new Date(at).toISOString();
  if (!AUDIT_TIMESTAMP.test(iso)) throw new RangeError(`audit timestamp out of range: ${iso}`);
  return iso;
}

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z in epoch milliseconds. */
const YEAR_0_MS = Date.parse('0000-01-01T00:00:00.000Z');
const YEAR_9999_END_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The exact form of `occurredAt` and `sealedAt`: `YYYY-MM-DDTHH:mm:ss.sssZ`.
 *
 * @see docs/audit.md
 */
export const AUDIT_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Genesis `prevHash` of every organization's chain: 64 `0` characters (32 zero bytes).
 *
 * @see docs/audit.md
 */
export const GENESIS_HASH = '0'.repeat(64);
