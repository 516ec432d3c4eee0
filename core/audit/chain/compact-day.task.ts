/**
 * Worker task `core.audit.compact-day` (core.workers, registered by `./chain-tasks.ts`): compacts
 * one organization's UTC day of sealed audit records into a Parquet day file. A pure function over
 * plain data (no clock, no I/O): records in, file bytes and their SHA-256 out — what in-line
 * `encodeDayFile` answers.
 *
 * @see docs/audit.md ("Archive: day files")
 */
import { transferable } from '../../workers/transferable.ts';
import { encodeDayFile, type DayFileMeta } from './day-file.ts';

/**
 * One task. Shape: `{ records: Uint8Array (UTF-8 NDJSON: one SealedAuditRecord's JSON per line,
 * seq order, one organization — `dayRecordsNdjson`), day: 'YYYY-MM-DD', checkpoints: string[]
 * (compact JWS) }`. The records travel as one buffer, moved to the thread (`compactDayFile`): no
 * copy, where a string (or the objects) would be serialized on the caller's thread and copied again
 * in the worker's.
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
 * Compacts one day: `encodeDayFile` over the parsed records; the file's ArrayBuffer (the whole
 * file, nothing else) is moved back to the caller rather than copied.
 *
 * @param task - {@link CompactDayTask}.
 * @returns {@link CompactDayResult}.
 * @throws RangeError / TypeError as `encodeDayFile` (no records, a gap, several organizations).
 * @see docs/audit.md
 */
export default function compactDayTask(task: CompactDayTask): CompactDayResult {
  const file = encodeDayFile({ records: task.records, day: task.day, checkpoints: task.checkpoints });
  return transferable(file, [file.bytes.buffer as ArrayBuffer]);
}
