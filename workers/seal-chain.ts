/**
 * Piscina task module: seal one organization's batch of audit records. A pure function over plain
 * data (no clock, no I/O), so the pool returns exactly what in-line `sealBatch` returns.
 *
 * Loaded in worker threads through the bootstrap `./seal-chain.worker.mjs`.
 *
 * @see docs/audit.md
 */
import type { AuditRecordInput } from '../core/audit/chain/audit-record.ts';
import { sealBatch, type SealBatchResult } from '../core/audit/chain/chain-hash.ts';
import { packSealResult, type PackedSealResult } from '../core/audit/chain/packed-result.ts';
import { payloadHashesV2, type AuditEventV2 } from '../core/audit/chain/chain-hash-v2.ts';

/**
 * One task: the organization's current head hash and its next records.
 *
 * Shape: `{ prevHash: 64 lowercase hex, sealedAt: YYYY-MM-DDTHH:mm:ss.sssZ, records:
 * AuditRecordInput[] | string }` — one organization, consecutive `seq`, typically a few hundred
 * records; `sealedAt` is the sealing transaction's time (the worker reads no clock).
 * `records` may be the JSON text of the array: posting one string to a thread costs ~0.3 µs per
 * record against ~8 µs for structured-cloning the objects, and JSON is the payload's own data
 * model, so the hashes are the same either way.
 * `seqOffset` (optional, default 0) is added to every record's `seq` after parsing, for JSON text
 * numbered within its batch (1, 2, …) before the organization's head was known.
 *
 * @see docs/audit.md
 */
export interface SealChainTask {
  prevHash: string;
  sealedAt: string;
  records: AuditRecordInput[] | string;
  seqOffset?: number;
}

/**
 * Seal one batch: `sealBatch(task.prevHash, task.records, task.sealedAt)` (parsing `records` first
 * when it is JSON text, then adding `seqOffset` to each `seq`; object records are not modified).
 *
 * @param task - {@link SealChainTask}.
 * @returns `{ sealed: {id, payloadHash, prevHash, chainHash}[], head: {orgId, seq, chainHash} }`.
 * @throws as `sealBatch` (the pool rejects the task's promise with the error).
 * @example await piscina.run({ prevHash: GENESIS_HASH, sealedAt, records })
 * @see docs/audit.md
 */
export default function sealChain(task: SealChainTask): SealBatchResult {
  const offset = task.seqOffset ?? 0;
  let records = task.records;
  if (typeof records === 'string') {
    records = JSON.parse(records) as AuditRecordInput[];
    if (offset !== 0) for (const r of records) r.seq += offset;
  } else if (offset !== 0) {
    records = records.map((r) => ({ ...r, seq: r.seq + offset }));
  }
  return sealBatch(task.prevHash, records, task.sealedAt);
}

/**
 * Seal one batch and return it packed (what `createHashPool` runs, via piscina's `name` option):
 * the same hashes as {@link sealChain}, cheaper to post back to the calling thread.
 *
 * @param task - {@link SealChainTask}.
 * @returns `PackedSealResult` `{ ids, hashes, head }`; `unpackSealResult(task.prevHash, …)` gives
 *   back exactly `sealChain(task)`.
 * @throws as `sealBatch`.
 * @example await piscina.run(task, { name: 'sealChainPacked' })
 * @see docs/audit.md
 */
export function sealChainPacked(task: SealChainTask): PackedSealResult {
  return packSealResult(sealChain(task));
}

/**
 * Version 2 payload hashes of a batch of events (the ingestion path, before the head lock).
 *
 * @param task - `{ events: JSON array text of AuditEventV2 }`.
 * @returns the hashes concatenated, 64 lowercase hex characters per event, in order.
 * @throws as `payloadHashesV2` (the pool rejects the task's promise with the error).
 * @example await piscina.run({ events: JSON.stringify(events) }, { name: 'payloadHashesV2Task' })
 * @see docs/audit.md
 */
export function payloadHashesV2Task(task: { events: string }): string {
  return payloadHashesV2(JSON.parse(task.events) as AuditEventV2[]);
}
