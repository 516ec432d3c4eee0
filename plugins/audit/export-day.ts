import { GENESIS_HASH, formatExportFile, verifyAgainstCheckpoint, verifyCheckpoint, verifyRecords, type AuditLog } from '../../core/index.ts';

/**
 * One UTC day of an organization's chain as a JSONL export (the kernel's `formatExportFile`):
 * the day's records (by `sealedAt`, so the run is contiguous) and every checkpoint inside it.
 * When no checkpoint sits exactly on the day's last record, one is signed for it — but only after
 * the records from it to the next stored checkpoint hash, link and end in that checkpoint's signed
 * chainHash, so the new signature vouches for nothing the old one did not.
 * @param log - the kernel's `core.auditLog` (waiting heads are signed first).
 * @param orgId - organization id.
 * @param day - `YYYY-MM-DD` (UTC).
 * @returns the file text (header only when the day holds no records).
 * @see docs/audit.md "Export"
 */
export async function exportDay(log: AuditLog, orgId: string, day: string): Promise<string> {
  const start = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(start.getTime())) throw new RangeError(`day must be YYYY-MM-DD, got ${day}`);
  const end = new Date(start.getTime() + 86_400_000);
  await log.flushCheckpoints(orgId);
  const records = await log.sealedBetween(orgId, start, end);
  if (!records.length) return formatExportFile([]);
  const first = records[0].seq;
  const last = records.at(-1)!.seq;
  const inDay = async () => (await log.checkpoints(orgId, { fromSeq: first, toSeq: last })).map((c) => c.jws);
  let jws = await inDay();
  const lastCovered = (await log.checkpoints(orgId, { fromSeq: last, toSeq: last })).length > 0;
  if (!lastCovered) {
    const [next] = await log.checkpoints(orgId, { fromSeq: last + 1 });
    if (next) {
      const run = await log.records(orgId, { fromSeq: last, toSeq: next.seq });
      const claims = await verifyCheckpoint(next.jws, await log.jwks()).catch(() => null);
      if (claims && claims.orgId === orgId && verifyRecords(run, last === 1 ? { startPrevHash: GENESIS_HASH } : {}).ok && verifyAgainstCheckpoint(run, claims).ok) {
        await log.signCheckpoint(records.at(-1)!);
        jws = await inDay();
      }
    }
  }
  return formatExportFile(records, jws);
}
