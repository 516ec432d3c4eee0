/**
 * Offline verification of a JSONL audit export: no database, only the platform audit JWKS.
 *
 * @see docs/audit.md
 * @see ./README.md "Export file"
 */
import type { JSONWebKeySet } from 'jose';
import type { SealedAuditRecord } from './audit-record.ts';
import { verifyRecords, type ChainBreakReason } from './verify-chain.ts';
import { CheckpointVerificationError, verifyAgainstCheckpoint, verifyCheckpoint, type VerifiedCheckpoint } from './checkpoint.ts';
import { ExportFileFormatError, parseExportFile, type ParsedExportFile } from './export-file.ts';

/**
 * Why an export file failed: a chain break reason from `verifyRecords`, or
 * `malformed_line` (not JSON, unknown `type`, missing header), `unsupported_format`,
 * `checkpoint_invalid` (bad signature, unknown kid, malformed claims), `checkpoint_mismatch`
 * (a verified checkpoint's seq is in the file but the record there has another chainHash or
 * sealedAt: rows were rewritten and re-hashed), `uncovered_tail` (the last records of an
 * organization are after its last matched checkpoint), `no_records`.
 *
 * @see docs/audit.md
 */
export type ExportFailureReason =
  | ChainBreakReason
  | 'malformed_line'
  | 'unsupported_format'
  | 'checkpoint_invalid'
  | 'checkpoint_mismatch'
  | 'uncovered_tail'
  | 'no_records';

/**
 * The first failure found. `record` is the first broken record as read from the file, when one
 * can be named; `line` is 1-based.
 *
 * @see docs/audit.md
 */
export interface ExportFailure {
  reason: ExportFailureReason;
  detail: string;
  line?: number;
  orgId?: string;
  seq?: number;
  id?: string;
  record?: SealedAuditRecord;
}

/**
 * Per-organization summary. `coveredThroughSeq` is the highest seq of a checkpoint of the file
 * that matched (null when none did); `unverifiableCheckpoints` counts valid checkpoints whose seq
 * lies outside the file's records.
 *
 * @see docs/audit.md
 */
export interface ExportOrgSummary {
  orgId: string;
  records: number;
  firstSeq: number;
  lastSeq: number;
  checkpointsMatched: number;
  unverifiableCheckpoints: number;
  coveredThroughSeq: number | null;
}

/**
 * Result of {@link verifyExportFile}: `{ ok, records, checkpoints, orgs, failure? }`.
 *
 * @see docs/audit.md
 */
export interface ExportFileReport {
  ok: boolean;
  records: number;
  checkpoints: number;
  orgs: ExportOrgSummary[];
  failure?: ExportFailure;
}

/**
 * Options of {@link verifyExportFile}. `requireCheckpointCoverage` (default true): fail with
 * `uncovered_tail` unless each organization's last record is covered by a matched checkpoint.
 *
 * @see docs/audit.md
 */
export interface VerifyExportOptions {
  requireCheckpointCoverage?: boolean;
}

/**
 * Verify an export file offline: every record's hashes and links per organization, every
 * checkpoint's signature against the JWKS, every checkpoint against the record at its seq, and
 * (by default) that each organization's last record is covered by a checkpoint.
 *
 * @param text - the whole file as UTF-8 text.
 * @param jwks - the platform audit JWKS `{ keys: [...] }`.
 * @param options - {@link VerifyExportOptions}.
 * @returns {@link ExportFileReport} with the first failure; never throws for bad content.
 * @example const report = await verifyExportFile(await readFile('day.jsonl', 'utf8'), jwks);
 * @see docs/audit.md
 */
export async function verifyExportFile(text: string, jwks: JSONWebKeySet, options: VerifyExportOptions = {}): Promise<ExportFileReport> {
  const report: ExportFileReport = { ok: false, records: 0, checkpoints: 0, orgs: [] };
  let parsed: ParsedExportFile;
  try {
    parsed = parseExportFile(text);
  } catch (err) {
    if (!(err instanceof ExportFileFormatError)) throw err;
    return { ...report, failure: { reason: err.reason, line: err.line, detail: err.message } };
  }
  report.records = parsed.records.length;
  report.checkpoints = parsed.checkpoints.length;
  if (parsed.records.length === 0) return { ...report, failure: { reason: 'no_records', detail: 'the file holds no records' } };

  // Per organization: records in file order and their line numbers.
  const groups = new Map<string, { records: SealedAuditRecord[]; lines: number[]; summary?: ExportOrgSummary }>();
  for (const { record, line } of parsed.records) {
    const orgId = String(record.orgId);
    let group = groups.get(orgId);
    if (!group) groups.set(orgId, (group = { records: [], lines: [] }));
    group.records.push(record);
    group.lines.push(line);
  }
  for (const [orgId, group] of groups) {
    const { records, lines } = group;
    const result = verifyRecords(records);
    if (!result.ok && result.firstBroken) {
      const { reason, detail, seq, id } = result.firstBroken;
      const at = result.checked;
      return { ...report, failure: { reason, detail, line: lines[at], orgId, seq, id, record: records[at] } };
    }
    group.summary = {
      orgId, records: records.length, firstSeq: records[0].seq, lastSeq: records[records.length - 1].seq,
      checkpointsMatched: 0, unverifiableCheckpoints: 0, coveredThroughSeq: null,
    };
    report.orgs.push(group.summary);
  }

  const verified: { checkpoint: VerifiedCheckpoint; line: number }[] = [];
  for (const { jws, line } of parsed.checkpoints) {
    try {
      verified.push({ checkpoint: await verifyCheckpoint(jws, jwks), line });
    } catch (err) {
      if (!(err instanceof CheckpointVerificationError)) throw err;
      return { ...report, failure: { reason: 'checkpoint_invalid', line, detail: err.message } };
    }
  }
  // Lowest seq first: the first mismatch is then bracketed by the highest match below it.
  verified.sort((a, b) => a.checkpoint.seq - b.checkpoint.seq);
  for (const { checkpoint, line } of verified) {
    const group = groups.get(checkpoint.orgId);
    const summary = group?.summary;
    // The run is verified gap-free, so the record at seq s sits at index s - firstSeq.
    const at = summary ? checkpoint.seq - summary.firstSeq : -1;
    if (!group || !summary || at < 0 || at >= group.records.length) {
      if (summary) summary.unverifiableCheckpoints++;
      continue;
    }
    const match = verifyAgainstCheckpoint([group.records[at]], checkpoint);
    if (!match.ok) {
      const from = summary.coveredThroughSeq === null ? summary.firstSeq : summary.coveredThroughSeq + 1;
      return {
        ...report,
        failure: {
          reason: 'checkpoint_mismatch', line: group.lines[at], orgId: checkpoint.orgId, seq: checkpoint.seq, id: match.id, record: group.records[at],
          detail: `${match.reason} against the checkpoint on line ${line} (kid ${checkpoint.kid}): records between seq ${from} and ${checkpoint.seq} were rewritten and re-hashed`,
        },
      };
    }
    summary.checkpointsMatched++;
    summary.coveredThroughSeq = checkpoint.seq;
  }

  if (options.requireCheckpointCoverage ?? true) {
    for (const summary of report.orgs) {
      if (summary.coveredThroughSeq === summary.lastSeq) continue;
      const group = groups.get(summary.orgId)!;
      const at = summary.coveredThroughSeq === null ? 0 : summary.coveredThroughSeq - summary.firstSeq + 1;
      const record = group.records[at];
      return {
        ...report,
        failure: {
          reason: 'uncovered_tail', line: group.lines[at], orgId: summary.orgId, seq: record.seq, id: record.id, record,
          detail: `records seq ${record.seq}..${summary.lastSeq} are not covered by a checkpoint of the file`,
        },
      };
    }
  }
  return { ...report, ok: true };
}
