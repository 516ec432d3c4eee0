/**
 * The hashes of a sealed record recomputed by the rules of its own `hashVersion` (1 when absent):
 * what every verifier (offline file, stored chain, per-record check) calls, so a chain may hold
 * records of both versions.
 *
 * @see docs/audit.md ("Record hash versions")
 */
import type { SealedAuditRecord } from './audit-record.ts';
import { chainHash, payloadHash } from './chain-hash.ts';
import { chainHashV2, payloadHashV2 } from './chain-hash-v2.ts';

function versionOf(record: SealedAuditRecord): 1 | 2 {
  const v = record.hashVersion;
  if (v === undefined || v === null || v === 1) return 1;
  if (v === 2) return 2;
  throw new TypeError(`audit record ${String(record.id)}: unknown hashVersion ${JSON.stringify(v)}`);
}

/**
 * The payloadHash a sealed record should carry, by its version's rules.
 *
 * @param record - a sealed record (its stored hashes are not read).
 * @returns 64 lowercase hex characters.
 * @throws TypeError for an unknown `hashVersion` or a malformed record (as `payloadHash` / `payloadHashV2`).
 * @see docs/audit.md
 */
export function recordPayloadHash(record: SealedAuditRecord): string {
  if (versionOf(record) === 2) {
    // Version 2 leaves seq and sealedAt to the link; they must still be well-formed.
    if (!Number.isSafeInteger(record.seq) || record.seq < 1) throw new TypeError(`audit record ${record.id}: seq must be an integer >= 1`);
    return payloadHashV2(record);
  }
  return payloadHash(record);
}

/**
 * The chainHash a sealed record should carry after `prevHash`, by its version's rules
 * (version 2 also covers `seq` and `sealedAt`).
 *
 * @param record - the sealed record.
 * @param prevHash - the chainHash it links to; 64 lowercase hex.
 * @param payloadHashHex - its payloadHash; 64 lowercase hex.
 * @returns 64 lowercase hex characters.
 * @throws TypeError on malformed hashes, `seq`, `sealedAt` or `hashVersion`.
 * @see docs/audit.md
 */
export function recordChainHash(record: SealedAuditRecord, prevHash: string, payloadHashHex: string): string {
  return versionOf(record) === 2 ? chainHashV2(prevHash, payloadHashHex, record.seq, record.sealedAt) : chainHash(prevHash, payloadHashHex);
}
