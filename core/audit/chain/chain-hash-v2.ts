/**
 * Record hash version 2: the payload hash leaves out the two fields only the chain's head can
 * decide (`seq` and `sealedAt`), and the chain link covers them instead. So an event's payload
 * hash can be computed before its organization's head is locked — in the worker pool, while
 * another batch holds the lock — and the work under the lock is one 80-byte SHA-256 per record.
 *
 * ```
 * payloadV2   = { id, orgId, eventType, occurredAt, actor: {type, id}, appGroupId?, businessData }
 * payloadHash = hex( SHA-256( UTF-8( JCS(payloadV2) ) ) )
 * chainHash   = hex( SHA-256( prevHash ‖ payloadHash ‖ uint64be(seq) ‖ int64be(sealedAt in epoch ms) ) )
 * ```
 * (hashes as their raw 32 bytes: 80 bytes in). A record sealed this way carries `hashVersion: 2`;
 * records without it are version 1 (`./chain-hash.ts`). Both versions may follow each other on one
 * chain: the link rule of a record is its own version's.
 *
 * @see docs/audit.md ("Record hash versions")
 * @see ./README.md
 */
import { hash } from 'node:crypto';
import { LONE_SURROGATE, canonicalJson } from './canonical-json.ts';
import { AUDIT_ACTOR_TYPES, AUDIT_TIMESTAMP, type AuditRecordInput, type JsonValue } from './audit-record.ts';

/** The record hash version this module implements. @see docs/audit.md */
export const HASH_VERSION_2 = 2;

/**
 * An event as version 2 hashes it: an {@link AuditRecordInput} without `seq` (and without `sealedAt`).
 *
 * @see docs/audit.md
 */
export type AuditEventV2 = Omit<AuditRecordInput, 'seq'> & { seq?: number };

/**
 * The hashed payload of a version 2 record: `id, orgId, eventType, occurredAt, actor {type, id},
 * appGroupId (only when present), businessData`.
 *
 * @see docs/audit.md
 */
export interface AuditPayloadV2 {
  id: string;
  orgId: string;
  eventType: string;
  occurredAt: string;
  actor: { type: string; id: string };
  appGroupId?: string;
  businessData: { [key: string]: JsonValue };
}

const HEX_HASH = /^[0-9a-f]{64}$/;
const SURROGATE = /[\ud800-\udfff]/;

/**
 * Pick and check the version 2 payload of an event (other properties, `seq` and `sealedAt`
 * included, are ignored).
 *
 * @param event - the event or a sealed record.
 * @returns a new {@link AuditPayloadV2} (businessData shared, not copied).
 * @throws TypeError when a field has the wrong form (empty ids, `occurredAt` not
 *   `YYYY-MM-DDTHH:mm:ss.sssZ`, unknown actor type, non-object businessData).
 * @see docs/audit.md
 */
export function payloadV2Of(event: AuditEventV2): AuditPayloadV2 {
  const { id, orgId, eventType, occurredAt, actor, appGroupId, businessData } = event;
  if (typeof id !== 'string' || id === '') throw new TypeError('audit record: id must be a non-empty string');
  if (typeof orgId !== 'string' || orgId === '') throw new TypeError(`audit record ${id}: orgId must be a non-empty string`);
  if (typeof eventType !== 'string' || eventType === '') throw new TypeError(`audit record ${id}: eventType must be a non-empty string`);
  if (typeof occurredAt !== 'string' || !AUDIT_TIMESTAMP.test(occurredAt)) throw new TypeError(`audit record ${id}: occurredAt must be YYYY-MM-DDTHH:mm:ss.sssZ`);
  if (actor === null || typeof actor !== 'object' || !AUDIT_ACTOR_TYPES.includes(actor.type) || typeof actor.id !== 'string' || actor.id === '') {
    throw new TypeError(`audit record ${id}: actor must be {type: ${AUDIT_ACTOR_TYPES.join('|')}, id}`);
  }
  if (businessData === null || typeof businessData !== 'object' || Array.isArray(businessData)) {
    throw new TypeError(`audit record ${id}: businessData must be a JSON object`);
  }
  const payload: AuditPayloadV2 = { id, orgId, eventType, occurredAt, actor: { type: actor.type, id: actor.id }, businessData };
  if (appGroupId !== undefined && appGroupId !== null) {
    if (typeof appGroupId !== 'string') throw new TypeError(`audit record ${id}: appGroupId must be a string`);
    payload.appGroupId = appGroupId;
  }
  // One test over the fields joined by a space (a space cannot complete a surrogate pair), made
  // only when some field holds a surrogate at all.
  const joined = `${id} ${orgId} ${eventType} ${actor.id} ${payload.appGroupId ?? ''}`;
  if (SURROGATE.test(joined) && LONE_SURROGATE.test(joined)) {
    throw new TypeError(`audit record ${id}: lone surrogate in a string field`);
  }
  return payload;
}

/**
 * Version 2 `payloadHash = SHA-256(UTF-8 bytes of JCS(payloadV2Of(event)))`.
 *
 * @param event - the event (a `seq` or `sealedAt` on it is ignored).
 * @returns 64 lowercase hex characters.
 * @throws as {@link payloadV2Of}, or from canonical JSON on NaN, ±Infinity or lone surrogates.
 * @see docs/audit.md
 */
export function payloadHashV2(event: AuditEventV2): string {
  const payload = payloadV2Of(event);
  return hash('sha256', canonicalPayloadV2(payload, canonicalJson(payload.businessData)), 'hex');
}

/**
 * Version 2 payloadHash from the fields and `businessData`'s canonical text, without checking the
 * fields: for events the sealability check (`core/audit/sealable.ts`) has already accepted — ids and names non-empty strings without lone
 * surrogates, a known actor type, `occurredAt` from `toISOString()` of a date in years 0001–9999.
 * Batch ingestion hashes this way; a property test checks it equals {@link payloadHashV2}.
 *
 * @param payload - the payload's fields (`appGroupId` absent or undefined when none).
 * @param canonicalBusinessData - `canonicalJson(businessData)`, exactly.
 * @returns 64 lowercase hex characters.
 * @see docs/audit.md
 */
export function payloadHashV2Unchecked(payload: Omit<AuditPayloadV2, 'businessData'>, canonicalBusinessData: string): string {
  return hash('sha256', canonicalPayloadV2(payload, canonicalBusinessData), 'hex');
}

// What JSON.stringify escapes in a string: `"`, `\`, C0 controls, and (ES2019) lone surrogates.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JCS (= `JSON.stringify`) writes it; most need no escaping and are only quoted. */
const jcsString = (value: string) => (NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`);

/**
 * RFC 8785 text of a version 2 payload, composed around the canonical `businessData`: every other
 * member is a string (JCS serializes strings exactly as `JSON.stringify`) and the members are
 * written in JCS order (UTF-16 code-unit order: actor, appGroupId, businessData, eventType, id,
 * occurredAt, orgId; inside actor: id, type). A property test checks it equals
 * `canonicalJson(payload)` for arbitrary events.
 */
function canonicalPayloadV2(p: Omit<AuditPayloadV2, 'businessData'>, canonicalBusinessData: string): string {
  const str = jcsString;
  return `{"actor":{"id":${str(p.actor.id)},"type":${str(p.actor.type)}},${p.appGroupId === undefined ? '' : `"appGroupId":${str(p.appGroupId)},`}` +
    `"businessData":${canonicalBusinessData},"eventType":${str(p.eventType)},"id":${str(p.id)},"occurredAt":${str(p.occurredAt)},"orgId":${str(p.orgId)}}`;
}

/**
 * Writes the 80-byte version 2 link input into `link`: prevHash ‖ payloadHash ‖ uint64be(seq) ‖
 * int64be(sealedAt ms), and answers its SHA-256 as hex.
 */
function linkHash(link: Buffer, prevHash: string, payloadHashHex: string, seq: number): string {
  link.write(prevHash, 0, 'hex');
  link.write(payloadHashHex, 32, 'hex');
  // seq ≤ 2^53 − 1: two 32-bit halves, no BigInt per record.
  link.writeUInt32BE(Math.floor(seq / 0x1_0000_0000), 64);
  link.writeUInt32BE(seq >>> 0, 68);
  return hash('sha256', link, 'hex');
}

/** An 80-byte link buffer with `sealedAt` (epoch ms) in place: the part a whole batch shares. */
function linkBuffer(sealedAtMs: number): Buffer {
  const link = Buffer.alloc(80);
  link.writeBigInt64BE(BigInt(sealedAtMs), 72);
  return link;
}

function checkHex(hex: unknown, what: string): asserts hex is string {
  if (typeof hex !== 'string' || !HEX_HASH.test(hex)) throw new TypeError(`${what} must be 64 lowercase hex characters`);
}

function sealedAtMs(sealedAt: string): number {
  if (typeof sealedAt !== 'string' || !AUDIT_TIMESTAMP.test(sealedAt)) throw new TypeError('sealedAt must be YYYY-MM-DDTHH:mm:ss.sssZ');
  const ms = Date.parse(sealedAt);
  if (!Number.isFinite(ms)) throw new TypeError(`sealedAt ${sealedAt} is not a valid time`);
  return ms;
}

/**
 * Version 2 `chainHash = SHA-256(prevHash ‖ payloadHash ‖ uint64be(seq) ‖ int64be(sealedAt ms))`.
 *
 * @param prevHash - previous record's chainHash (or the genesis hash); 64 lowercase hex.
 * @param payloadHashHex - this record's version 2 payloadHash; 64 lowercase hex.
 * @param seq - this record's position, an integer ≥ 1.
 * @param sealedAt - `YYYY-MM-DDTHH:mm:ss.sssZ`.
 * @returns 64 lowercase hex characters.
 * @throws TypeError on a malformed hash, `seq` or `sealedAt`.
 * @see docs/audit.md
 */
export function chainHashV2(prevHash: string, payloadHashHex: string, seq: number, sealedAt: string): string {
  checkHex(prevHash, 'prevHash');
  checkHex(payloadHashHex, 'payloadHash');
  if (!Number.isSafeInteger(seq) || seq < 1) throw new TypeError('seq must be an integer >= 1');
  return linkHash(linkBuffer(sealedAtMs(sealedAt)), prevHash, payloadHashHex, seq);
}

/**
 * Chains a run of version 2 payload hashes after a head: the cheap step done under the head's lock.
 *
 * @param prevHash - the head's chainHash (genesis for an empty chain).
 * @param firstSeq - the first record's `seq` (head `seq` + 1).
 * @param payloadHashes - concatenated payload hashes (64 hex characters each), as `renderIngestRows` (`./ingest-rows.ts`) answers them.
 * @param sealedAt - the sealing transaction's time, `YYYY-MM-DDTHH:mm:ss.sssZ`.
 * @returns per record `{prevHash, chainHash}` in order.
 * @throws TypeError on malformed input.
 * @see docs/audit.md
 */
export function linkV2(prevHash: string, firstSeq: number, payloadHashes: string, sealedAt: string): Array<{ prevHash: string; chainHash: string }> {
  checkHex(prevHash, 'prevHash');
  if (!Number.isSafeInteger(firstSeq) || firstSeq < 1) throw new TypeError('firstSeq must be an integer >= 1');
  if (payloadHashes.length % 64 !== 0 || !/^[0-9a-f]*$/.test(payloadHashes)) throw new TypeError('payloadHashes must be 64 lowercase hex characters per record');
  const ms = sealedAtMs(sealedAt);
  const link = linkBuffer(ms);
  const out: Array<{ prevHash: string; chainHash: string }> = new Array(payloadHashes.length / 64);
  let prev = prevHash;
  for (let i = 0; i < out.length; i++) {
    const chain = linkHash(link, prev, payloadHashes.slice(i * 64, i * 64 + 64), firstSeq + i);
    out[i] = { prevHash: prev, chainHash: chain };
    prev = chain;
  }
  return out;
}
