import type { JSONWebKeySet } from 'jose';
import {
  GENESIS_HASH, recordChainHash, recordPayloadHash, verifyAgainstCheckpoint, verifyCheckpoint, verifyRecords, type AuditLog, type ChainBreak, type SealedAuditRecord,
} from '../../core/index.ts';
import { checkPurgeHorizon, type PurgeHorizon } from './purge-horizon.ts';

/**
 * How the nearest checkpoint at or after a record judged it:
 * - `matched` — signature valid, the records from this one to the checkpoint link and hash, and the
 *   record at the checkpoint's seq has the signed chainHash and sealedAt;
 * - `mismatch` — the records link but end in another chainHash (rows rewritten and re-hashed);
 * - `chain_broken` — a record between this one and the checkpoint fails its own hashes or links;
 * - `signature_invalid` — the stored checkpoint does not verify against the audit JWKS;
 * - `pending` — no checkpoint covers the record yet (it is after the newest one).
 * @see docs/api/audit.md "Verify one record"
 */
export type CheckpointStatus = 'matched' | 'mismatch' | 'chain_broken' | 'signature_invalid' | 'pending';

/**
 * Result of {@link verifyStoredRecord} (the body of `GET /api/v1/admin/audit/verify/{logId}`):
 * `{ logId, orgId, seq, eventType, sealedAt, ok, payloadHash{ok,stored,recomputed},
 * chainHash{ok,stored,recomputed}, link{ok,previousSeq,expected,stored},
 * checkpoint{status, seq?, kid?, signedAt?, recordsChecked?, firstBroken?, detail},
 * horizon? }`. `horizon` `{ throughSeq, day, ok, detail }` is present for the first record after
 * the purge horizon: its link is checked against the horizon's chainHash, itself checked against
 * the signed checkpoint on the last purged record.
 * `ok` is true when every check passed and the checkpoint `matched` or is `pending`.
 * @see docs/audit.md (`GET /verify/{logId}`), docs/audit.md
 */
export interface StoredRecordVerification {
  logId: string;
  orgId: string;
  seq: number;
  eventType: string;
  sealedAt: string;
  ok: boolean;
  payloadHash: { ok: boolean; stored: string; recomputed: string | null };
  chainHash: { ok: boolean; stored: string; recomputed: string | null };
  link: { ok: boolean; previousSeq: number | null; expected: string | null; stored: string };
  checkpoint: { status: CheckpointStatus; seq?: number; kid?: string; signedAt?: string; recordsChecked?: number; firstBroken?: ChainBreak; detail: string };
  horizon?: { throughSeq: number; day: string; ok: boolean; detail: string };
}

/**
 * Verifies one sealed record as stored: its payloadHash and chainHash recomputed, its link to the
 * previous record, and the nearest checkpoint at or after it (which catches a rewrite followed by
 * re-hashing every later record). The first record after the organization's purge horizon links
 * to the horizon's chainHash, once the horizon's signed checkpoint verifies.
 * @param log - the kernel's `core.auditLog`.
 * @param record - the stored record.
 * @param jwks - the platform audit JWKS.
 * @param horizon - the organization's purge horizon, when rows were purged.
 * @returns {@link StoredRecordVerification}.
 * @see docs/audit.md
 */
export async function verifyStoredRecord(log: AuditLog, record: SealedAuditRecord, jwks: JSONWebKeySet, horizon?: PurgeHorizon): Promise<StoredRecordVerification> {
  const safe = (f: () => string) => { try { return f(); } catch { return null; } };
  const recomputedPayload = safe(() => recordPayloadHash(record));
  const recomputedChain = safe(() => recordChainHash(record, record.prevHash, recomputedPayload ?? record.payloadHash));
  let expected: string | null;
  let horizonResult: StoredRecordVerification['horizon'];
  if (horizon && record.seq === horizon.throughSeq + 1) {
    const check = await checkPurgeHorizon(horizon, jwks);
    horizonResult = { throughSeq: horizon.throughSeq, day: horizon.day, ok: check.ok,
      detail: check.ok ? `seq 1..${horizon.throughSeq} were purged to the archive (day file ${horizon.day}); the horizon's chainHash is signed (kid ${check.kid})` : check.detail };
    expected = check.ok ? horizon.chainHash : null;
  } else {
    const previous = record.seq > 1 ? (await log.records(record.orgId, { fromSeq: record.seq - 1, toSeq: record.seq - 1 }))[0] : undefined;
    expected = record.seq === 1 ? GENESIS_HASH : previous?.chainHash ?? null;
  }
  const result: StoredRecordVerification = {
    logId: record.id, orgId: record.orgId, seq: record.seq, eventType: record.eventType, sealedAt: record.sealedAt, ok: false,
    payloadHash: { ok: recomputedPayload === record.payloadHash, stored: record.payloadHash, recomputed: recomputedPayload },
    chainHash: { ok: recomputedChain === record.chainHash, stored: record.chainHash, recomputed: recomputedChain },
    link: { ok: expected === record.prevHash, previousSeq: record.seq > 1 ? record.seq - 1 : null, expected, stored: record.prevHash },
    checkpoint: await checkAgainstNextCheckpoint(log, record, jwks),
    ...(horizonResult ? { horizon: horizonResult } : {}),
  };
  result.ok = result.payloadHash.ok && result.chainHash.ok && result.link.ok && ['matched', 'pending'].includes(result.checkpoint.status) && (horizonResult?.ok ?? true);
  return result;
}

async function checkAgainstNextCheckpoint(log: AuditLog, record: SealedAuditRecord, jwks: JSONWebKeySet): Promise<StoredRecordVerification['checkpoint']> {
  const [row] = await log.checkpoints(record.orgId, { fromSeq: record.seq });
  if (!row) return { status: 'pending', detail: 'no checkpoint covers this record yet; it is protected by the hash links only' };
  const base = { seq: row.seq, kid: row.kid, signedAt: row.createdAt.toISOString() };
  let claims;
  try {
    claims = await verifyCheckpoint(row.jws, jwks);
  } catch (err) {
    return { status: 'signature_invalid', ...base, detail: (err as Error).message };
  }
  if (claims.orgId !== record.orgId) return { status: 'signature_invalid', ...base, detail: 'the checkpoint is signed for another organization' };
  const run = await log.records(record.orgId, { fromSeq: record.seq, toSeq: claims.seq });
  const links = verifyRecords(run, record.seq === 1 ? { startPrevHash: GENESIS_HASH } : {});
  if (!links.ok) return { status: 'chain_broken', ...base, recordsChecked: links.checked, firstBroken: links.firstBroken, detail: links.firstBroken!.detail };
  const match = verifyAgainstCheckpoint(run, claims);
  if (!match.ok) {
    return { status: 'mismatch', ...base, recordsChecked: run.length, detail: `${match.reason}: records between seq ${record.seq} and ${claims.seq} were rewritten and re-hashed` };
  }
  return { status: 'matched', ...base, recordsChecked: run.length, detail: `records seq ${record.seq}..${claims.seq} end in the signed chainHash` };
}

/**
 * Outcome of {@link verifyStoredChain}: `{ ok, checked, checkpointsMatched, coveredThroughSeq,
 * headSeq, horizon?, firstBroken? }`; `firstBroken` is `{ seq, id, reason, detail, record? }` where `reason`
 * is a chain break reason, `checkpoint_mismatch` (the record at the checkpoint's seq; the rewrite
 * lies between the previous matched checkpoint and it), `checkpoint_invalid` or `horizon_invalid`
 * (the purge horizon's signed checkpoint does not verify or does not match it). `horizon`
 * `{ throughSeq, chainHash, day, kid? }` is present when the walk started at the purge horizon.
 * @see docs/audit.md "CLI"
 */
export interface StoredChainReport {
  ok: boolean;
  checked: number;
  checkpointsMatched: number;
  coveredThroughSeq: number | null;
  headSeq: number;
  horizon?: { throughSeq: number; chainHash: string; day: string; kid?: string };
  firstBroken?: { seq: number; id?: string; reason: string; detail: string; record?: SealedAuditRecord };
}

/**
 * Walks an organization's whole stored chain from `fromSeq` (pages of 5,000) with its checkpoints
 * and stops at the first broken record. When the organization's hot rows were purged through a
 * horizon and `fromSeq` is at or before it, the walk starts right after the horizon: the first
 * remaining record must link to the horizon's chainHash (`startPrevHash`), which the signed
 * checkpoint on the last purged record must vouch for (the purged records are verified in their
 * day files).
 * @param log - the kernel's `core.auditLog`.
 * @param orgId - organization id.
 * @param jwks - the platform audit JWKS.
 * @param fromSeq - first seq to check (default 1); its prevHash is taken as given unless it is 1 or the record after the horizon.
 * @param horizon - the organization's purge horizon, when rows were purged.
 * @returns {@link StoredChainReport}.
 * @see docs/audit.md
 */
export async function verifyStoredChain(log: AuditLog, orgId: string, jwks: JSONWebKeySet, fromSeq = 1, horizon?: PurgeHorizon): Promise<StoredChainReport> {
  const report: StoredChainReport = { ok: false, checked: 0, checkpointsMatched: 0, coveredThroughSeq: null, headSeq: await log.headSeq(orgId) };
  let prev: string | undefined = fromSeq === 1 ? GENESIS_HASH : undefined;
  let next = fromSeq;
  const fromHorizon = horizon !== undefined && fromSeq <= horizon.throughSeq + 1;
  if (fromHorizon) {
    report.horizon = { throughSeq: horizon.throughSeq, chainHash: horizon.chainHash, day: horizon.day };
    const check = await checkPurgeHorizon(horizon, jwks);
    if (!check.ok) {
      report.firstBroken = { seq: horizon.throughSeq, reason: 'horizon_invalid', detail: check.detail };
      return report;
    }
    report.horizon.kid = check.kid;
    report.checkpointsMatched++;
    report.coveredThroughSeq = horizon.throughSeq;
    prev = horizon.chainHash;
    next = horizon.throughSeq + 1;
  }
  const cps = new Map<number, Array<{ jws: string }>>();
  for (const { seq, jws } of await log.checkpoints(orgId, { fromSeq: next })) cps.set(seq, [...(cps.get(seq) ?? []), { jws }]);
  for (;;) {
    const page = await log.records(orgId, { fromSeq: next, limit: 5000 });
    if (!page.length) break;
    if (fromHorizon && report.checked === 0 && page[0].seq !== next) {
      report.firstBroken = { seq: page[0].seq, id: page[0].id, reason: 'seq_gap', detail: `the purge horizon is seq ${next - 1} but the first hot record is seq ${page[0].seq}`, record: page[0] };
      return report;
    }
    const links = verifyRecords(page, prev ? { startPrevHash: prev } : {});
    if (!links.ok) {
      const at = links.checked;
      report.checked += at;
      report.firstBroken = { ...links.firstBroken!, record: page[at] };
      return report;
    }
    for (const record of page) {
      for (const { jws } of cps.get(record.seq) ?? []) {
        let claims;
        try {
          claims = await verifyCheckpoint(jws, jwks);
        } catch (err) {
          report.firstBroken = { seq: record.seq, id: record.id, reason: 'checkpoint_invalid', detail: (err as Error).message, record };
          return report;
        }
        const match = verifyAgainstCheckpoint([record], claims);
        if (!match.ok || claims.orgId !== orgId) {
          const from = report.coveredThroughSeq === null ? fromSeq : report.coveredThroughSeq + 1;
          report.firstBroken = { seq: record.seq, id: record.id, reason: 'checkpoint_mismatch', record,
            detail: `${match.ok ? 'org_mismatch' : match.reason}: records between seq ${from} and ${record.seq} were rewritten and re-hashed` };
          return report;
        }
        report.checkpointsMatched++;
        report.coveredThroughSeq = record.seq;
      }
    }
    report.checked += page.length;
    prev = page.at(-1)!.chainHash;
    next = page.at(-1)!.seq + 1;
  }
  if ((report.checked || fromHorizon) && next - 1 < report.headSeq) {
    report.firstBroken = { seq: next, reason: 'seq_gap', detail: `chain ends at seq ${next - 1} but the head says ${report.headSeq}` };
    return report;
  }
  report.ok = true;
  return report;
}
