import { DAY_MS, GENESIS_HASH, formatExportFile, verifyAgainstCheckpoint, verifyCheckpoint, verifyRecords, type AuditLog, type SealedAuditRecord } from '../../core/index.ts';

/**
 * The signed checkpoints covering a run of one organization's records (`seq` order, non-empty):
 * every stored checkpoint inside the run, and — when none sits exactly on its last record — one
 * signed for it, but only after the records from it to the next stored checkpoint hash, link and end
 * in that checkpoint's signed chainHash, so the new signature vouches for nothing the old one did not.
 * Waiting heads are signed first (`flushCheckpoints`).
 * @param log - the kernel's `core.auditLog`.
 * @param orgId - organization id.
 * @param records - the run.
 * @param options - `alsoEvery`: when the run's end is vouched for by verifying the records up to the
 *   next stored checkpoint, also sign every `alsoEvery`-th record after the end within that verified
 *   stretch, so that following runs of that length end on a checkpoint and verify nothing again (the
 *   raw batch archive passes its run length: each record is then verified once, not once per run
 *   before the next checkpoint).
 * @returns `{ jws, covered }`: the compact JWS strings in `seq` order, and whether one is at the
 *   run's last record (false when no later checkpoint exists yet, or the records up to it do not verify).
 * @see docs/audit.md "Archive: day files", "CLI"
 */
export async function coveringCheckpoints(log: AuditLog, orgId: string, records: readonly SealedAuditRecord[], options: { alsoEvery?: number } = {}): Promise<{ jws: string[]; covered: boolean }> {
  await log.flushCheckpoints(orgId);
  const first = records[0].seq;
  const last = records.at(-1)!.seq;
  const inRun = async () => (await log.checkpoints(orgId, { fromSeq: first, toSeq: last })).map((c) => ({ seq: c.seq, jws: c.jws }));
  let stored = await inRun();
  if (!stored.some((c) => c.seq === last)) {
    const [next] = await log.checkpoints(orgId, { fromSeq: last + 1 });
    if (next) {
      const run = await log.records(orgId, { fromSeq: last, toSeq: next.seq });
      const claims = await verifyCheckpoint(next.jws, await log.jwks()).catch(() => null);
      if (claims && claims.orgId === orgId && verifyRecords(run, last === 1 ? { startPrevHash: GENESIS_HASH } : {}).ok && verifyAgainstCheckpoint(run, claims).ok) {
        await log.signCheckpoint(records.at(-1)!);
        // run[i] is the record at last + i; run.at(-1) is `next`, signed already.
        const every = options.alsoEvery ?? 0;
        if (every > 0) for (let i = every; i < run.length - 1; i += every) await log.signCheckpoint(run[i]);
        stored = await inRun();
      }
    }
  }
  return { jws: stored.map((c) => c.jws), covered: stored.some((c) => c.seq === last) };
}

/**
 * One UTC day of an organization's chain as a JSONL export (the kernel's `formatExportFile`):
 * the day's records (by `sealedAt`, so the run is contiguous) and every checkpoint inside it,
 * with one on the day's last record when {@link coveringCheckpoints} can vouch for it.
 * @param log - the kernel's `core.auditLog` (waiting heads are signed first).
 * @param orgId - organization id.
 * @param day - `YYYY-MM-DD` (UTC).
 * @returns the file text (header only when the day holds no records).
 * @see docs/audit.md "Export"
 */
export async function exportDay(log: AuditLog, orgId: string, day: string): Promise<string> {
  const start = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(start.getTime())) throw new RangeError(`day must be YYYY-MM-DD, got ${day}`);
  const end = new Date(start.getTime() + DAY_MS);
  await log.flushCheckpoints(orgId);
  const records = await log.sealedBetween(orgId, start, end);
  if (!records.length) return formatExportFile([]);
  return formatExportFile(records, (await coveringCheckpoints(log, orgId, records)).jws);
}
