/**
 * Offline verification of a run of sealed records of one organization: recompute every hash and
 * check the links and the gap-free `seq`. No database, no keys.
 *
 * What this does NOT prove: that nobody rewrote a row and then recomputed every later hash. Only a
 * signed checkpoint catches that — see `verifyAgainstCheckpoint` in `./checkpoint.ts`.
 *
 * @see docs/audit.md
 */
import type { ChainHead, SealedAuditRecord } from './audit-record.ts';
import { GENESIS_HASH } from './chain-hash.ts';
import { recordChainHash, recordPayloadHash } from './record-hash.ts';

/**
 * Why a record failed verification, checked in this order for each record:
 * - `org_mismatch` — the record belongs to another organization than the first record;
 * - `seq_gap` — `seq` is not the previous record's `seq` + 1 (a record was deleted, inserted or
 *   reordered), or the first record is not `seq` 1 while `startPrevHash` is the genesis hash;
 * - `payload_hash_mismatch` — the stored payloadHash differs from the recomputed one (or the
 *   record is malformed and cannot be hashed): the record's content was changed;
 * - `prev_hash_mismatch` — `prevHash` differs from the previous record's `chainHash`
 *   (or from `startPrevHash` / the genesis hash for the first record);
 * - `chain_hash_mismatch` — the stored chainHash differs from the recomputed link: SHA-256(prevHash ‖
 *   payloadHash) for version 1 records, with `seq` and `sealedAt` appended for version 2 ones.
 *
 * @see docs/audit.md
 */
export type ChainBreakReason = 'org_mismatch' | 'seq_gap' | 'payload_hash_mismatch' | 'prev_hash_mismatch' | 'chain_hash_mismatch';

/**
 * The first record that failed.
 *
 * Shape: `{ seq, id, reason, detail }`; `detail` is a one-line human explanation.
 *
 * @see docs/audit.md
 */
export interface ChainBreak {
  seq: number;
  id: string;
  reason: ChainBreakReason;
  detail: string;
}

/**
 * Outcome of {@link verifyRecords}.
 *
 * Shape: `{ ok, checked, head?, firstBroken? }` — `checked` counts the records that passed
 * before the first break (all of them when `ok`); `head` is the last passing record's
 * `{orgId, seq, chainHash}` (absent when none passed).
 *
 * @see docs/audit.md
 */
export interface VerifyRecordsResult {
  ok: boolean;
  checked: number;
  head?: ChainHead;
  firstBroken?: ChainBreak;
}

/**
 * Options of {@link verifyRecords}.
 *
 * - `startPrevHash` — the chainHash the first record must link to (e.g. the previous day's last
 *   chainHash). When omitted: the genesis hash if the first record has `seq` 1, otherwise the
 *   first record's own `prevHash` is taken as given (the run is then anchored only by checkpoints).
 *
 * @see docs/audit.md
 */
export interface VerifyRecordsOptions {
  startPrevHash?: string;
}

/**
 * Verify a run of one organization's sealed records, in `seq` order, and stop at the first break.
 *
 * @param records - sealed records of one organization, sorted by `seq` (not re-sorted here:
 *   a reordered file is itself a finding).
 * @param options - {@link VerifyRecordsOptions}.
 * @returns {@link VerifyRecordsResult}; never throws for bad records (they become `firstBroken`).
 * @example
 * const r = verifyRecords(dayRecords, { startPrevHash: yesterdayLastChainHash });
 * if (!r.ok) console.log(r.firstBroken); // { seq: 42, id: '…', reason: 'payload_hash_mismatch', … }
 * @see docs/audit.md
 */
export function verifyRecords(records: readonly SealedAuditRecord[], options: VerifyRecordsOptions = {}): VerifyRecordsResult {
  let head: ChainHead | undefined;
  const broken = (record: SealedAuditRecord, reason: ChainBreakReason, detail: string, checked: number): VerifyRecordsResult => ({
    ok: false,
    checked,
    ...(head ? { head } : {}),
    firstBroken: { seq: record.seq, id: record.id, reason, detail },
  });

  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const previous = i > 0 ? records[i - 1] : undefined;

    if (previous && record.orgId !== previous.orgId) {
      return broken(record, 'org_mismatch', `organization ${record.orgId} in a run of ${previous.orgId}`, i);
    }
    if (previous && record.seq !== previous.seq + 1) {
      return broken(record, 'seq_gap', `seq ${record.seq} follows seq ${previous.seq}`, i);
    }
    if (!previous && options.startPrevHash === GENESIS_HASH && record.seq !== 1) {
      return broken(record, 'seq_gap', `chain starts at seq ${record.seq}, expected 1`, i);
    }

    let recomputed: string;
    try {
      recomputed = recordPayloadHash(record);
    } catch (err) {
      return broken(record, 'payload_hash_mismatch', `record cannot be hashed: ${(err as Error).message}`, i);
    }
    if (recomputed !== record.payloadHash) {
      return broken(record, 'payload_hash_mismatch', `stored ${String(record.payloadHash)}, recomputed ${recomputed}`, i);
    }

    const expectedPrev = previous
      ? previous.chainHash
      : (options.startPrevHash ?? (record.seq === 1 ? GENESIS_HASH : record.prevHash));
    if (record.prevHash !== expectedPrev) {
      return broken(record, 'prev_hash_mismatch', `prevHash ${String(record.prevHash)}, expected ${expectedPrev}`, i);
    }

    let recomputedChain: string;
    try {
      recomputedChain = recordChainHash(record, record.prevHash, recomputed);
    } catch (err) {
      return broken(record, 'prev_hash_mismatch', (err as Error).message, i);
    }
    if (recomputedChain !== record.chainHash) {
      return broken(record, 'chain_hash_mismatch', `stored ${String(record.chainHash)}, recomputed ${recomputedChain}`, i);
    }
    head = { orgId: record.orgId, seq: record.seq, chainHash: record.chainHash };
  }
  return { ok: true, checked: records.length, ...(head ? { head } : {}) };
}
