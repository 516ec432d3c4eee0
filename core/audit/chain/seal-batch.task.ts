/**
 * Worker task `core.audit.seal-batch` (core.workers, registered by `./chain-tasks.ts`): seals one
 * organization's batch of audit records. A pure function over plain data (no clock, no I/O), so
 * the pool answers exactly what in-line `sealBatch` answers.
 *
 * @see docs/audit.md
 */
import type { AuditRecordInput } from './audit-record.ts';
import { sealBatch } from './chain-hash.ts';
import { packSealResult, type PackedSealResult } from './packed-result.ts';

/**
 * One task: the organization's current head hash and its next records.
 *
 * Shape: `{ prevHash: 64 lowercase hex, sealedAt: YYYY-MM-DDTHH:mm:ss.sssZ, records: JSON array
 * text of AuditRecordInput, seqOffset?: number }` — one organization, consecutive `seq`, typically
 * a few hundred records; `sealedAt` is the sealing transaction's time (the worker reads no clock).
 * The records travel as JSON text: posting one string to a thread costs ~0.3 µs per record against
 * ~8 µs for structured-cloning the objects, and JSON is the payload's own data model, so the
 * hashes are the same either way. `seqOffset` (default 0) is added to every record's `seq` after
 * parsing, for text numbered within its batch (1, 2, …) before the organization's head was known.
 *
 * @see docs/audit.md
 */
export interface SealChainTask {
  prevHash: string;
  sealedAt: string;
  records: string;
  seqOffset?: number;
}

/**
 * Seals one batch — `sealBatch(task.prevHash, records, task.sealedAt)` over the parsed records,
 * `seqOffset` added to each `seq` — and answers it packed, cheaper to post back to the calling thread.
 *
 * @param task - {@link SealChainTask}.
 * @returns `PackedSealResult` `{ ids, hashes, head }`; `unpackSealResult(task.prevHash, …)` gives
 *   back exactly what `sealBatch` answers.
 * @throws SyntaxError on text that is not JSON; as `sealBatch` (a gap, a wrong organization, a bad `sealedAt`).
 * @see docs/audit.md
 */
export default function sealBatchTask(task: SealChainTask): PackedSealResult {
  const offset = task.seqOffset ?? 0;
  const records = JSON.parse(task.records) as AuditRecordInput[];
  if (offset !== 0) for (const r of records) r.seq += offset;
  return packSealResult(sealBatch(task.prevHash, records, task.sealedAt));
}
