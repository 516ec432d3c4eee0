/**
 * Piscina task module: compact one organization's UTC day of sealed audit records into a Parquet
 * day file. A pure function over plain data (no clock, no I/O): records in, file bytes and their
 * SHA-256 out — what in-line `encodeDayFile` answers.
 *
 * Loaded in worker threads through the bootstrap `./compact-day.worker.mjs`.
 *
 * @see docs/audit.md ("Archive: day files")
 */
import { isWorkerThread, move, transferableSymbol, valueSymbol } from 'piscina';
import { encodeDayFile, type DayFileMeta } from '../core/audit/chain/day-file.ts';

/**
 * One task. Shape: `{ records: Uint8Array (UTF-8 NDJSON: one SealedAuditRecord's JSON per line,
 * seq order, one organization — `dayRecordsNdjson`), day: 'YYYY-MM-DD', checkpoints: string[]
 * (compact JWS) }`. The records travel as one buffer, transferred to the thread by the pool: no copy,
 * where a string (or the objects) would be serialized on the caller's thread and copied again in the worker's.
 *
 * @see docs/audit.md
 */
export interface CompactDayTask {
  records: Uint8Array;
  day: string;
  checkpoints: string[];
}

/**
 * The task's answer. Shape: `{ bytes: Uint8Array (the Parquet file), sha256: 64 lowercase hex,
 * meta: DayFileMeta }`.
 *
 * @see docs/audit.md
 */
export interface CompactDayResult {
  bytes: Uint8Array;
  sha256: string;
  meta: DayFileMeta;
}

/**
 * Compact one day: `encodeDayFile` over the parsed records. Called in-line it answers the plain
 * result; in a piscina thread the file's ArrayBuffer (the whole file, nothing else) is transferred
 * to the caller rather than copied.
 *
 * @param task - {@link CompactDayTask}.
 * @returns {@link CompactDayResult}.
 * @throws RangeError / TypeError as `encodeDayFile` (no records, a gap, several organizations).
 * @see docs/audit.md
 */
export default function compactDay(task: CompactDayTask): CompactDayResult {
  const file = encodeDayFile({ records: task.records, day: task.day, checkpoints: task.checkpoints });
  return isWorkerThread ? (move(transferable(file)) as unknown as CompactDayResult) : file;
}

/** The result marked for piscina: post `file`, transferring its bytes' buffer. */
function transferable(file: CompactDayResult) {
  return {
    get [transferableSymbol]() { return [file.bytes.buffer]; },
    get [valueSymbol]() { return file; },
  };
}
