/**
 * The hash rules of the sealed audit chain: what is hashed, how, and how a batch is chained.
 * Pure functions over plain data; the worker task `./seal-batch.task.ts` runs {@link sealBatch}.
 *
 * @see docs/audit.md
 * @see ./README.md
 */
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import {
  AUDIT_ACTOR_TYPES,
  AUDIT_TIMESTAMP,
  GENESIS_HASH,
  type AuditRecordInput,
  type ChainHead,
  type HashableAuditRecord,
  type JsonValue,
  type SealedHashes,
} from './audit-record.ts';

export { GENESIS_HASH };

/**
 * The hashed payload of a record: exactly `id, orgId, seq, eventType, occurredAt,
 * actor {type, id}, appGroupId (only when present), businessData, sealedAt` — the stored record
 * without its three hashes.
 *
 * @see docs/audit.md
 */
export interface AuditPayload {
  id: string;
  orgId: string;
  seq: number;
  eventType: string;
  occurredAt: string;
  actor: { type: string; id: string };
  appGroupId?: string;
  businessData: { [key: string]: JsonValue };
  sealedAt: string;
}

const HEX_HASH = /^[0-9a-f]{64}$/;

function buildPayload(record: AuditRecordInput, sealedAt: string): AuditPayload {
  const { id, orgId, seq, eventType, occurredAt, actor, appGroupId, businessData } = record;
  if (typeof id !== 'string' || id === '') throw new TypeError('audit record: id must be a non-empty string');
  if (typeof orgId !== 'string' || orgId === '') throw new TypeError(`audit record ${id}: orgId must be a non-empty string`);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new TypeError(`audit record ${id}: seq must be an integer >= 1`);
  if (typeof eventType !== 'string' || eventType === '') throw new TypeError(`audit record ${id}: eventType must be a non-empty string`);
  if (typeof occurredAt !== 'string' || !AUDIT_TIMESTAMP.test(occurredAt)) {
    throw new TypeError(`audit record ${id}: occurredAt must be YYYY-MM-DDTHH:mm:ss.sssZ`);
  }
  if (actor === null || typeof actor !== 'object' || !AUDIT_ACTOR_TYPES.includes(actor.type) || typeof actor.id !== 'string' || actor.id === '') {
    throw new TypeError(`audit record ${id}: actor must be {type: ${AUDIT_ACTOR_TYPES.join('|')}, id}`);
  }
  if (businessData === null || typeof businessData !== 'object' || Array.isArray(businessData)) {
    throw new TypeError(`audit record ${id}: businessData must be a JSON object`);
  }
  if (typeof sealedAt !== 'string' || !AUDIT_TIMESTAMP.test(sealedAt)) {
    throw new TypeError(`audit record ${id}: sealedAt must be YYYY-MM-DDTHH:mm:ss.sssZ`);
  }
  const payload: AuditPayload = { id, orgId, seq, eventType, occurredAt, actor: { type: actor.type, id: actor.id }, businessData, sealedAt };
  if (appGroupId !== undefined && appGroupId !== null) {
    if (typeof appGroupId !== 'string') throw new TypeError(`audit record ${id}: appGroupId must be a string`);
    payload.appGroupId = appGroupId;
  }
  return payload;
}

/**
 * Pick the hashed fields of a record, dropping everything else (the three hashes, extra columns).
 *
 * `appGroupId` is omitted when `undefined` or `null`; the actor is reduced to `{type, id}`.
 *
 * @param record - a {@link HashableAuditRecord} (input fields + `sealedAt`), e.g. a sealed record.
 * @returns a new {@link AuditPayload} object (businessData is shared, not copied).
 * @throws TypeError when a field has the wrong form (non-integer or < 1 `seq`, `occurredAt` or
 *   `sealedAt` not `YYYY-MM-DDTHH:mm:ss.sssZ`, unknown actor type, empty ids, non-object businessData).
 * @example canonicalJson(payloadOf(record)) // the exact text whose UTF-8 bytes payloadHash covers
 * @see docs/audit.md
 */
export function payloadOf(record: HashableAuditRecord): AuditPayload {
  return buildPayload(record, record.sealedAt);
}

/**
 * The RFC 8785 (JCS) canonical JSON text of a record's payload — the exact string whose UTF-8
 * bytes {@link payloadHash} digests.
 *
 * @param record - the record to serialize.
 * @returns canonical JSON, e.g. `{"actor":{"id":"a1","type":"account"},"businessData":{},...}`.
 * @throws TypeError as {@link payloadOf}, or from `canonicalJson` on NaN, ±Infinity, BigInt or lone surrogates.
 * @see docs/audit.md
 */
export function canonicalPayload(record: HashableAuditRecord): string {
  return canonicalJson(payloadOf(record));
}

/**
 * `payloadHash = SHA-256(UTF-8 bytes of the RFC 8785 canonical JSON of payloadOf(record))`.
 *
 * @param record - the record to hash (input fields + `sealedAt`).
 * @returns 64 lowercase hex characters.
 * @throws as {@link canonicalPayload}.
 * @example payloadHash(sealedRecord) === sealedRecord.payloadHash
 * @see docs/audit.md
 */
export function payloadHash(record: HashableAuditRecord): string {
  // crypto.hash: one-shot, about half the cost of createHash().update().digest() for small inputs.
  return hash('sha256', canonicalPayload(record), 'hex');
}

function hashBytes(hex: string, what: string): Buffer {
  if (typeof hex !== 'string' || !HEX_HASH.test(hex)) throw new TypeError(`${what} must be 64 lowercase hex characters`);
  return Buffer.from(hex, 'hex');
}

/**
 * `chainHash = SHA-256(prevHash ‖ payloadHash)` where ‖ concatenates the two RAW 32-byte digests
 * (64 bytes in, not the 128 hex characters).
 *
 * @param prevHash - previous record's chainHash, or {@link GENESIS_HASH}; 64 lowercase hex.
 * @param payloadHashHex - this record's payloadHash; 64 lowercase hex.
 * @returns 64 lowercase hex characters.
 * @throws TypeError when either argument is not 64 lowercase hex characters.
 * @example chainHash(GENESIS_HASH, payloadHash(first))
 * @see docs/audit.md
 */
export function chainHash(prevHash: string, payloadHashHex: string): string {
  return hash('sha256', Buffer.concat([hashBytes(prevHash, 'prevHash'), hashBytes(payloadHashHex, 'payloadHash')]), 'hex');
}

/**
 * Result of sealing one organization's batch.
 *
 * Shape: `{ sealed: {id, payloadHash, prevHash, chainHash}[] (input order), head: {orgId, seq, chainHash} }`.
 *
 * @see docs/audit.md
 */
export interface SealBatchResult {
  sealed: SealedHashes[];
  head: ChainHead;
}

/**
 * Hash and chain one organization's batch, starting from the chain head's hash.
 *
 * The records must belong to one organization and carry consecutive `seq` values; the first
 * record's `seq` is 1 exactly when `prevHash` is {@link GENESIS_HASH}.
 *
 * @param prevHash - chainHash of the organization's current head (GENESIS_HASH for a new chain).
 * @param records - the batch, in `seq` order, at least one record (a `sealedAt` on them is ignored).
 * @param sealedAt - the sealing transaction's time, stored on and hashed into every record of
 *   the batch (`YYYY-MM-DDTHH:mm:ss.sssZ`); passed in so that this function reads no clock.
 * @returns {@link SealBatchResult}; `head` is the last record's `{orgId, seq, chainHash}`.
 * @throws RangeError on an empty batch, mixed organizations, a `seq` gap, or a genesis/seq mismatch;
 *   TypeError as {@link payloadOf} / {@link chainHash}.
 * @example const { sealed, head } = sealBatch(GENESIS_HASH, [r1, r2, r3], toAuditTimestamp(clock.now()));
 * @see docs/audit.md
 */
export function sealBatch(prevHash: string, records: readonly AuditRecordInput[], sealedAt: string): SealBatchResult {
  if (records.length === 0) throw new RangeError('sealBatch: empty batch');
  const first = records[0];
  if ((prevHash === GENESIS_HASH) !== (first.seq === 1)) {
    throw new RangeError(`sealBatch: seq ${first.seq} cannot follow ${prevHash === GENESIS_HASH ? 'the genesis hash' : 'a non-genesis head'}`);
  }
  // link = prevHash bytes (0..31) ‖ payloadHash bytes (32..63), reused across the batch.
  const link = Buffer.alloc(64);
  hashBytes(prevHash, 'prevHash').copy(link, 0);
  let prevHex = prevHash;
  const sealed: SealedHashes[] = new Array(records.length);
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (record.orgId !== first.orgId) throw new RangeError(`sealBatch: record ${record.id} belongs to another organization`);
    if (record.seq !== first.seq + i) throw new RangeError(`sealBatch: seq gap at record ${record.id} (expected ${first.seq + i})`);
    const payloadHex = hash('sha256', canonicalJson(buildPayload(record, sealedAt)), 'hex');
    link.write(payloadHex, 32, 'hex');
    const chainHex = hash('sha256', link, 'hex');
    link.write(chainHex, 0, 'hex');
    sealed[i] = { id: record.id, payloadHash: payloadHex, prevHash: prevHex, chainHash: chainHex };
    prevHex = chainHex;
  }
  const last = records[records.length - 1];
  return { sealed, head: { orgId: last.orgId, seq: last.seq, chainHash: prevHex } };
}
