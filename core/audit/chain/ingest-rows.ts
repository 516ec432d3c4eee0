/**
 * What batch ingestion computes for each event before its organization's head is locked: the
 * canonical `businessData` (and its size check), the version 2 payload hash, and the event's COPY
 * row up to the columns the head decides. A pure function over plain data, so the same code runs
 * in-line and in a worker thread (the task `./render-ingest.task.ts`).
 *
 * @see docs/audit.md ("Ingestion modes")
 */
import { canonicalJson, canonicalSizeProblem } from './canonical-json.ts';
import { payloadHashV2Unchecked } from './chain-hash-v2.ts';
import type { AuditActorType } from './audit-record.ts';

/**
 * One checked event: `[id, orgId, eventType, occurredAt (YYYY-MM-DDTHH:mm:ss.sssZ), actorType,
 * actorId, appGroupId or null, businessData]`, every field already accepted by the sealability
 * check (`core/audit/sealable.ts`); `businessData` plain JSON data (no `Date`, no `undefined`).
 */
export type IngestRow = [string, string, string, string, AuditActorType, string, string | null, Record<string, unknown>];

/** Options of {@link renderIngestRows}. */
export interface RenderIngestOptions {
  /** Largest canonical `businessData`, in UTF-8 bytes. */
  maxBytes: number;
  /** Render the COPY rows (a PostgreSQL server); else none. */
  copy: boolean;
  /** Answer the canonical texts too (the set-based INSERT and the idempotency fingerprint use them). */
  keepCanonical: boolean;
}

/**
 * The result of {@link renderIngestRows}: `hashes` — 64 hex characters per event, concatenated;
 * `canonical` — per event, `businessData`'s RFC 8785 text (when asked, else null); `copy` — the
 * events' COPY rows in text format, UTF-8, one after the other, each up to and with the tab after
 * `hash_version` (column order `id, org_id, event_type, occurred_at, actor_type, actor_id,
 * app_group_id, business_data, payload_hash, hash_version`), and `ends[i]` the byte offset where
 * event `i`'s row ends (both null without `copy`).
 */
export interface RenderedIngest {
  hashes: string;
  canonical: string[] | null;
  copy: Uint8Array | null;
  ends: Uint32Array | null;
}

/** An event whose canonical `businessData` is too large: `index` in the batch, and the rule. */
export interface IngestRowProblem {
  problem: { index: number; field: 'businessData'; rule: string };
}

/**
 * Renders a batch (see the file comment).
 * @param rows - the checked events, in order.
 * @param canonical - their canonical `businessData` texts when already computed (and size-checked),
 *   else null: computed here, and checked against `maxBytes`.
 * @param options - {@link RenderIngestOptions}.
 * @returns {@link RenderedIngest}, or {@link IngestRowProblem} for the first event over `maxBytes`.
 */
export function renderIngestRows(rows: IngestRow[], canonical: string[] | null, options: RenderIngestOptions): RenderedIngest | IngestRowProblem {
  const texts = canonical ?? new Array<string>(rows.length);
  if (!canonical) {
    for (let i = 0; i < rows.length; i++) {
      texts[i] = canonicalJson(rows[i][7]);
      const rule = canonicalSizeProblem(texts[i], options.maxBytes);
      if (rule) return { problem: { index: i, field: 'businessData', rule } };
    }
  }
  let hashes = '';
  for (let i = 0; i < rows.length; i++) {
    const [id, orgId, eventType, occurredAt, type, actorId, appGroupId] = rows[i];
    hashes += payloadHashV2Unchecked({ id, orgId, eventType, occurredAt, actor: { type, id: actorId }, appGroupId: appGroupId ?? undefined }, texts[i]);
  }
  const copy = options.copy ? copyPrefixes(rows, texts, hashes) : null;
  return { hashes, canonical: options.keepCanonical ? texts : null, copy: copy?.bytes ?? null, ends: copy?.ends ?? null };
}

// COPY text format: backslash, and the characters that end fields and rows, are escaped; NULL is \N.
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyField = (value: string) => (COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]) : value);

/** The rows' COPY prefixes written one after the other into one buffer (`business_data` as its canonical text). */
function copyPrefixes(rows: IngestRow[], canonical: string[], hashes: string): { bytes: Uint8Array; ends: Uint32Array } {
  const text = new Array<string>(rows.length);
  let units = 0;
  for (let i = 0; i < rows.length; i++) {
    const [id, orgId, eventType, occurredAt, type, actorId, appGroupId] = rows[i];
    text[i] = `${id}\t${orgId}\t${copyField(eventType)}\t${occurredAt}\t${type}\t${copyField(actorId)}\t` +
      `${appGroupId === null ? '\\N' : copyField(appGroupId)}\t${copyField(canonical[i])}\t${hashes.slice(i * 64, i * 64 + 64)}\t2\t`;
    units += text[i].length;
  }
  // At most 3 UTF-8 bytes per UTF-16 code unit; its own memory, so a worker can hand it over whole.
  const bytes = Buffer.from(new ArrayBuffer(units * 3));
  const ends = new Uint32Array(rows.length);
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    at += bytes.write(text[i], at);
    ends[i] = at;
  }
  return { bytes: bytes.subarray(0, at), ends };
}
