/**
 * Worker task `core.audit.render-ingest` (core.workers, registered by `./chain-tasks.ts`): renders
 * an ingestion batch before its head is locked (`./ingest-rows.ts`) — canonical `businessData`
 * with its size check, version 2 payload hashes, COPY rows.
 *
 * @see docs/audit.md ("Ingestion modes")
 */
import { transferable } from '../../workers/transferable.ts';
import { renderIngestRows, type IngestRow, type IngestRowProblem, type RenderIngestOptions, type RenderedIngest } from './ingest-rows.ts';

/** One task: `{ rows: JSON array text of IngestRow, options: RenderIngestOptions }`. */
export interface RenderIngestTask {
  rows: string;
  options: RenderIngestOptions;
}

/**
 * `renderIngestRows` of the parsed rows; the COPY bytes and their row ends are moved to the
 * calling thread, not copied.
 *
 * @param task - {@link RenderIngestTask}.
 * @returns `RenderedIngest`, or `{ problem }` for the first event over `options.maxBytes`.
 * @throws TypeError from canonical JSON on data the sealability check would have refused.
 * @see docs/audit.md
 */
export default function renderIngestTask(task: RenderIngestTask): RenderedIngest | IngestRowProblem {
  const result = renderIngestRows(JSON.parse(task.rows) as IngestRow[], null, task.options);
  if ('problem' in result || !result.copy || !result.ends) return result;
  return transferable(result, [result.copy.buffer as ArrayBuffer, result.ends.buffer as ArrayBuffer]);
}
