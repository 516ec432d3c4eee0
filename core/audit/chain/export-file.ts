/**
 * The JSONL audit export ("day file"): writing and parsing its lines.
 *
 * Format (UTF-8, one JSON object per line, `\n` separated, each line RFC 8785 canonical JSON):
 * 1. line 1, header:   `{"format":"aerie-audit-export","type":"header","version":1}`
 * 2. record lines:     `{"type":"record", ...SealedAuditRecord}` in `seq` order per organization
 * 3. checkpoint lines: `{"jws":"<compact JWS>","type":"checkpoint"}`, placed after the record they
 *    cover (placement is a convention; the verifier matches by orgId and seq).
 * Empty lines are ignored. A file may hold several organizations; each is its own chain.
 * Verification lives in `./verify-export-file.ts`.
 *
 * @see docs/audit.md
 * @see ./README.md "Export file"
 */
import canonicalize from 'canonicalize';
import { decodeJwt } from 'jose';
import type { SealedAuditRecord } from './audit-record.ts';

/** Value of the header's `format` field. @see docs/audit.md */
export const EXPORT_FORMAT = 'aerie-audit-export';
/** The export format version this code writes and reads. @see docs/audit.md */
export const EXPORT_VERSION = 1;

/**
 * A parsed export file: its record lines (the `type` field removed) and checkpoint lines, each
 * with its 1-based line number.
 *
 * @see docs/audit.md
 */
export interface ParsedExportFile {
  records: { record: SealedAuditRecord; line: number }[];
  checkpoints: { jws: string; line: number }[];
}

/**
 * Thrown by {@link parseExportFile}: `reason` is `malformed_line` (not a JSON object, unknown
 * `type`, no header first) or `unsupported_format` (header of another format or version).
 *
 * @see docs/audit.md
 */
export class ExportFileFormatError extends Error {
  static readonly code = 'AUDIT_EXPORT_MALFORMED';
  constructor(readonly reason: 'malformed_line' | 'unsupported_format', readonly line: number, message: string) {
    super(message);
    this.name = 'ExportFileFormatError';
  }
}

/**
 * Write an export file: header, the records in the given order, and each checkpoint right after
 * the record it covers (checkpoints covering no record of the list go at the end).
 *
 * @param records - sealed records, in seq order per organization.
 * @param checkpoints - compact JWS checkpoints (their payload is decoded, not verified, for placement).
 * @returns the file text, ending in `\n`.
 * @example await writeFile('day.jsonl', formatExportFile(records, [jws]))
 * @see docs/audit.md
 */
export function formatExportFile(records: readonly SealedAuditRecord[], checkpoints: readonly string[] = []): string {
  const after = new Map<string, string[]>();
  const rest: string[] = [];
  const keyOf = (orgId: unknown, seq: unknown) => `${String(orgId)}\u0000${String(seq)}`;
  const present = new Set(records.map((r) => keyOf(r.orgId, r.seq)));
  for (const jws of checkpoints) {
    const claims = decodeJwt(jws);
    const key = keyOf(claims.orgId, claims.seq);
    if (present.has(key)) after.set(key, [...(after.get(key) ?? []), jws]);
    else rest.push(jws);
  }
  const line = (value: unknown) => `${canonicalize(value)}\n`;
  let text = line({ type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION });
  for (const record of records) {
    text += `${recordLine(record) ?? canonicalize({ ...record, type: 'record' })}\n`;
    for (const jws of after.get(keyOf(record.orgId, record.seq)) ?? []) text += line({ type: 'checkpoint', jws });
  }
  for (const jws of rest) text += line({ type: 'checkpoint', jws });
  return text;
}

/**
 * Parse an export file's lines without verifying any hash or signature.
 *
 * @param text - the whole file.
 * @returns {@link ParsedExportFile}.
 * @throws ExportFileFormatError on the first bad line.
 * @example const { records, checkpoints } = parseExportFile(text);
 * @see docs/audit.md
 */
export function parseExportFile(text: string): ParsedExportFile {
  const parsed: ParsedExportFile = { records: [], checkpoints: [] };
  const lines = text.split('\n');
  let sawHeader = false;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    if (lines[i].trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(lines[i]);
    } catch (err) {
      throw new ExportFileFormatError('malformed_line', lineNo, `line ${lineNo} is not JSON: ${(err as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ExportFileFormatError('malformed_line', lineNo, `line ${lineNo} is not a JSON object`);
    }
    const { type, ...rest } = value as Record<string, unknown>;
    if (!sawHeader) {
      if (type !== 'header') throw new ExportFileFormatError('malformed_line', lineNo, `line ${lineNo}: expected the header line first`);
      if (rest.format !== EXPORT_FORMAT || rest.version !== EXPORT_VERSION) {
        throw new ExportFileFormatError('unsupported_format', lineNo, `unsupported export format ${String(rest.format)} v${String(rest.version)}`);
      }
      sawHeader = true;
    } else if (type === 'record') {
      parsed.records.push({ record: rest as unknown as SealedAuditRecord, line: lineNo });
    } else if (type === 'checkpoint' && typeof rest.jws === 'string') {
      parsed.checkpoints.push({ jws: rest.jws, line: lineNo });
    } else {
      throw new ExportFileFormatError('malformed_line', lineNo, `line ${lineNo}: unknown line type ${JSON.stringify(type)}`);
    }
  }
  if (!sawHeader) throw new ExportFileFormatError('malformed_line', 1, 'empty file: no header line');
  return parsed;
}

/** The members of a record line, in RFC 8785 order (UTF-16 code units), `type` included. */
const RECORD_KEYS = new Set(['actor', 'appGroupId', 'businessData', 'chainHash', 'eventType', 'hashVersion', 'id', 'occurredAt', 'orgId', 'payloadHash', 'prevHash', 'sealedAt', 'seq']);

/**
 * A record's line, `canonicalize({...record, type: 'record'})` exactly, composed around the
 * library's canonical `businessData`: every other member is a string or a number (serialized by
 * `JSON.stringify`, as the library does) in fixed JCS order, which saves sorting and serializing the
 * whole record (the batch archive writes every sealed record once). Undefined for a record of any
 * other shape (an unknown member, a member of another type), which then takes the library's path.
 * A property test checks the two agree.
 */
function recordLine(r: SealedAuditRecord): string | undefined {
  for (const key in r) if (!RECORD_KEYS.has(key)) return undefined;
  const { actor, appGroupId, hashVersion } = r;
  if (typeof r.id !== 'string' || typeof r.orgId !== 'string' || typeof r.eventType !== 'string' || typeof r.occurredAt !== 'string' || typeof r.sealedAt !== 'string' ||
    typeof r.payloadHash !== 'string' || typeof r.prevHash !== 'string' || typeof r.chainHash !== 'string' || typeof r.seq !== 'number' || !Number.isFinite(r.seq) ||
    actor === null || typeof actor !== 'object' || Object.getPrototypeOf(actor) !== Object.prototype || Object.keys(actor).length !== 2 ||
    typeof actor.id !== 'string' || typeof actor.type !== 'string' ||
    (appGroupId !== undefined && typeof appGroupId !== 'string') || (hashVersion !== undefined && (typeof hashVersion !== 'number' || !Number.isFinite(hashVersion)))) return undefined;
  const data = canonicalize(r.businessData);
  if (typeof data !== 'string') return undefined;
  const str = JSON.stringify;
  return `{"actor":{"id":${str(actor.id)},"type":${str(actor.type)}},${appGroupId === undefined ? '' : `"appGroupId":${str(appGroupId)},`}"businessData":${data},` +
    `"chainHash":${str(r.chainHash)},"eventType":${str(r.eventType)},${hashVersion === undefined ? '' : `"hashVersion":${str(hashVersion)},`}"id":${str(r.id)},` +
    `"occurredAt":${str(r.occurredAt)},"orgId":${str(r.orgId)},"payloadHash":${str(r.payloadHash)},"prevHash":${str(r.prevHash)},"sealedAt":${str(r.sealedAt)},` +
    `"seq":${str(r.seq)},"type":"record"}`;
}
