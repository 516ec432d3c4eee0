import type { Knex } from 'knex';
import { GENESIS_HASH, formatExportFile, verifyAgainstCheckpoint, verifyCheckpoint, verifyRecords } from './chain/index.ts';
import { auditJwks } from './platform-audit-key.ts';
import { readChain, toSealedRecord } from './read-chain.ts';
import type { AuditCheckpointer } from './checkpointer.ts';

/**
 * One UTC day of an organization's chain as a JSONL export (`core/audit/chain/export-file.ts`):
 * the day's records (by `sealedAt`, so the run is contiguous) and every checkpoint inside it.
 * When no checkpoint sits exactly on the day's last record, one is signed for it — but only after
 * the records from it to the next stored checkpoint hash, link and end in that checkpoint's signed
 * chainHash, so the new signature vouches for nothing the old one did not.
 * @param knex - database handle.
 * @param checkpointer - the kernel's checkpointer (waiting heads are signed first).
 * @param orgId - organization id.
 * @param day - `YYYY-MM-DD` (UTC).
 * @returns the file text (header only when the day holds no records).
 * @see spec 01 "Audit", docs/audit.md "Export"
 */
export async function exportDay(knex: Knex, checkpointer: AuditCheckpointer, orgId: string, day: string): Promise<string> {
  const start = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(start.getTime())) throw new RangeError(`day must be YYYY-MM-DD, got ${day}`);
  const end = new Date(start.getTime() + 86_400_000);
  await checkpointer.flush(orgId);
  const rows = await knex('core.audit_events').where({ orgId }).andWhere('sealedAt', '>=', start).andWhere('sealedAt', '<', end).orderBy('seq');
  const records = rows.map(toSealedRecord);
  if (!records.length) return formatExportFile([]);
  const first = records[0].seq;
  const last = records.at(-1)!.seq;
  const inDay = async () => (await knex('core.audit_checkpoints').where({ orgId }).whereBetween('seq', [first, last]).orderBy('seq').orderBy('id')).map((r: { jws: string }) => r.jws);
  let jws = await inDay();
  const lastCovered = await knex('core.audit_checkpoints').where({ orgId, seq: last }).first();
  if (!lastCovered) {
    const next = await knex('core.audit_checkpoints').where({ orgId }).andWhere('seq', '>', last).orderBy('seq').first();
    if (next) {
      const run = await readChain(knex, orgId, { fromSeq: last, toSeq: Number(next.seq) });
      const claims = await verifyCheckpoint(next.jws, await auditJwks(knex)).catch(() => null);
      if (claims && claims.orgId === orgId && verifyRecords(run, last === 1 ? { startPrevHash: GENESIS_HASH } : {}).ok && verifyAgainstCheckpoint(run, claims).ok) {
        const r = records.at(-1)!;
        await checkpointer.signHead({ orgId, seq: r.seq, chainHash: r.chainHash, sealedAt: r.sealedAt });
        jws = await inDay();
      }
    }
  }
  return formatExportFile(records, jws);
}
