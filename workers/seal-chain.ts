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
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { renderIngestRows, type IngestRow, type IngestRowProblem, type RenderIngestOptions, type RenderedIngest } from '../core/audit/chain/ingest-rows.ts';

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
 * Renders an ingestion batch before its head is locked (`core/audit/chain/ingest-rows.ts`):
 * canonical `businessData` with its size check, version 2 payload hashes, COPY rows. The COPY
 * bytes and their row ends are moved to the calling thread, not copied.
 *
 * @param task - `{ rows: JSON array text of IngestRow, options: RenderIngestOptions }`.
 * @returns `RenderedIngest`, or `{ problem }` for the first event over `options.maxBytes`.
 * @throws TypeError from canonical JSON on data the sealability check would have refused.
 * @example await piscina.run({ rows: JSON.stringify(rows), options }, { name: 'renderIngestTask' })
 * @see docs/audit.md
 */
export function renderIngestTask(task: { rows: string; options: RenderIngestOptions }): RenderedIngest | IngestRowProblem {
  const result = renderIngestRows(JSON.parse(task.rows) as IngestRow[], null, task.options);
  if ('problem' in result || !result.copy || !result.ends) return result;
  const { copy, ends } = result;
  return move({
    get [transferableSymbol]() {
      return [copy.buffer, ends.buffer];
    },
    get [valueSymbol]() {
      return result;
    },
  }) as unknown as RenderedIngest;
}
