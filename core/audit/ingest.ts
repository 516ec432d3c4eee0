/**
 * Sealed batch ingestion (`core.audit.ingest`): events with no business transaction to join are
 * sealed directly on their organization's chain instead of passing through the outbox — written
 * once, not three times. Payload hashes (record hash version 2) and the COPY rows are rendered
 * before the head is locked (`./chain/ingest-rows.ts`: in-line from the canonical text the
 * sealability check produced, or in the worker pool on request); then one transaction locks the head, chains the
 * batch (one 80-byte SHA-256 per event), writes the sealed rows (COPY on a PostgreSQL server, one
 * set-based INSERT on embedded PGlite), advances the head and commits. The outbox sealer takes the
 * same head lock, so both modes share one chain per organization without forking it.
 *
 * @see docs/audit.md ("Ingestion modes", "Record hash versions")
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { GENESIS_HASH, linkV2, renderIngestRows, toAuditTimestamp, type ChainHead, type ChainTasks, type IngestRow, type RenderedIngest } from './chain/index.ts';
import type { AuditEventInput, IngestOptions, IngestResult } from './audit-service.types.ts';
import { aerieError, validationFailed } from '../errors.ts';
import { AUDIT_MAX_BUSINESS_DATA_BYTES } from './sealable.ts';
import { hash as digest } from 'node:crypto';
import { prepareEvents, type PreparedEvent } from './prepare-events.ts';
import { advanceHeads } from './sealer-sql.ts';

/** Options of {@link AuditIngestor}. */
export interface AuditIngestorOptions {
  /**
   * The chain's tasks on `core.workers`, to render batches of at least `poolThreshold` events
   * (canonical form, size check, payload hashes, COPY rows) in a thread. The kernel gives them
   * only with `audit.ingestThreads` > 0: on two cores the JSON round trip to the thread costs more
   * CPU than it saves the main thread (bench/audit-ingest.ts prints both, `e` and `e'`); it is for
   * machines with cores to spare.
   */
  pool?: ChainTasks;
  /** Smallest batch hashed in the pool (default: none, with no pool). */
  poolThreshold?: number;
  /** Called after each committed batch with the head it advanced (checkpoint signing, `core.audit.sealed`). */
  afterSealed?: (heads: Array<ChainHead & { sealedAt: string }>) => Promise<void>;
}

/** Smallest batch the kernel renders in the ingestion pool when `audit.ingestThreads` is set (smaller ones stay in-line). */
export const INGEST_POOL_MIN_EVENTS = 100;

const COLUMNS = 'id, org_id, seq, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data, payload_hash, prev_hash, chain_hash, sealed_at, hash_version';
/** COPY's column order: what is known before the head lock first, then what the lock decides. */
const COPY_COLUMNS = 'id, org_id, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data, payload_hash, hash_version, seq, prev_hash, chain_hash, sealed_at';

/**
 * Creates the organization's head at seq 0 / genesis if it has none, and locks it: one statement
 * (an upsert that changes nothing still takes the row lock, held until the transaction ends).
 */
const LOCK_HEAD = `insert into core.audit_heads (org_id, seq, chain_hash, updated_at) values (?::uuid, 0, ?, now())
  on conflict (org_id) do update set org_id = excluded.org_id returning seq, chain_hash as hash`;

/** One statement for PGlite (and any driver without COPY): the batch as one JSON parameter. */
const INSERT_SEALED = `insert into core.audit_events (${COLUMNS})
  select r.id, r.org_id, r.seq, r.event_type, r.occurred_at, r.actor_type, r.actor_id, r.app_group_id, r.business_data::jsonb,
    r.payload_hash, r.prev_hash, r.chain_hash, r.sealed_at, 2
  from jsonb_to_recordset(?::jsonb) as r(id uuid, org_id uuid, seq bigint, event_type text, occurred_at timestamptz, actor_type text,
    actor_id text, app_group_id text, business_data text, payload_hash text, prev_hash text, chain_hash text, sealed_at timestamptz)`;

/**
 * `core.audit.ingest`, see the file comment.
 * @see docs/audit.md
 */
export class AuditIngestor {
  /** Batches rendered in the worker pool since start (a counter for diagnostics and tests). */
  pooledBatches = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: AuditIngestorOptions = {},
  ) {}

  /**
   * Seals `events` on `orgId`'s chain, all or none, and answers once they are committed.
   * @param orgId - the organization (every event's `orgId` is set to it).
   * @param events - 1 or more events (callers bound the count; the route allows 1,000).
   * @param options - {@link IngestOptions}: a tighter `businessData` limit, an idempotency key.
   * @returns {@link IngestResult}: ids in request order, the seq range, the last chainHash, sealedAt,
   *   and `replayed` (an earlier request with the same key and the same events sealed them).
   * @throws AerieError 400 `VALIDATION_FAILED` with `field` `events[i].…` for the first event that
   *   could not be sealed; 422 `IDEMPOTENCY_KEY_REUSED` when the key sealed other events within 24
   *   hours (nothing written either way); a database failure rolls the whole batch back.
   */
  async ingest(orgId: string, events: Array<Omit<AuditEventInput, 'orgId'>>, options: IngestOptions = {}): Promise<IngestResult> {
    if (events.length === 0) throw new RangeError('ingest: empty batch');
    const { pool, poolThreshold = Infinity } = this.options;
    const pooled = pool !== undefined && events.length >= poolThreshold;
    const fieldOf = (field: string, i: number) => `events[${i}].${field}`;
    // In the pool, businessData is canonicalized (and its size checked) by the worker.
    const now = this.clock.now();
    const { rows: prepared, canonical } = prepareEvents(events.map((e) => ({ ...e, orgId })), now, options, fieldOf, !pooled);
    // Events without their own time share `now` (the same Date): its text is rendered once.
    const nowText = now.toISOString();
    const rows: IngestRow[] = prepared.map((p) => [p.id, p.org_id, p.event_type, p.occurred_at === now ? nowText : p.occurred_at.toISOString(), p.actor_type, p.actor_id, p.app_group_id, p.business_data]);
    const key = options.idempotencyKey;
    // Everything of the COPY rows that the head does not decide, rendered before taking its lock.
    const renderOptions = { maxBytes: options.maxBusinessDataBytes ?? AUDIT_MAX_BUSINESS_DATA_BYTES, copy: this.db.kind === 'pg', keepCanonical: this.db.kind !== 'pg' || key !== undefined };
    if (pooled) this.pooledBatches++;
    const rendered = pooled ? await pool.renderIngest(JSON.stringify(rows), renderOptions) : renderIngestRows(rows, canonical, renderOptions);
    if ('problem' in rendered) {
      const field = fieldOf(rendered.problem.field, rendered.problem.index);
      throw validationFailed(`${field} ${rendered.problem.rule}`, field);
    }
    const sealed: Array<ChainHead & { sealedAt: string }> = [];
    const fingerprint = key === undefined ? '' : requestFingerprint(prepared, rendered.canonical!, events);
    const result = await this.db.transaction(async (trx): Promise<IngestResult> => {
      const { rows: [locked] } = await trx.raw(LOCK_HEAD, [orgId, GENESIS_HASH]);
      const head = { seq: Number(locked.seq), chainHash: String(locked.hash) };
      // Under the head's lock, so a retry racing the first request waits for it and then replays it.
      if (key !== undefined) {
        const prior = await priorIngestion(trx, orgId, key);
        if (prior) {
          if (prior.requestHash !== fingerprint) throw aerieError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key sealed other events within the last 24 hours; use a new key for new events.');
          return { ...prior.result, ids: await idsBetween(trx, orgId, prior.result.firstSeq, prior.result.lastSeq), replayed: true };
        }
      }
      // Read the clock under the lock: sealedAt never goes backwards along a chain.
      const sealedAt = toAuditTimestamp(this.clock.now());
      const batch: SealedBatch = {
        events: prepared, rendered, firstSeq: head.seq + 1, links: linkV2(head.chainHash, head.seq + 1, rendered.hashes, sealedAt), sealedAt,
      };
      await this.write(trx, batch);
      const last = { orgId, seq: head.seq + prepared.length, chainHash: batch.links[prepared.length - 1].chainHash };
      await advanceHeads(trx, [last], sealedAt);
      sealed.push({ ...last, sealedAt });
      if (key !== undefined) {
        await trx.raw(`insert into core.audit_ingest_keys (org_id, key, request_hash, first_seq, last_seq, chain_hash, sealed_at, created_at)
          values (?::uuid, ?, ?, ?, ?, ?, ?::timestamptz, now())`, [orgId, key, fingerprint, batch.firstSeq, last.seq, last.chainHash, sealedAt]);
      }
      return { ids: prepared.map((r) => r.id), firstSeq: batch.firstSeq, lastSeq: last.seq, chainHash: last.chainHash, sealedAt, replayed: false };
    });
    if (result.replayed) return result;
    // Committed: the events are sealed whatever happens next; a checkpoint failure is the checkpointer's to retry.
    await this.options.afterSealed?.(sealed).catch((err: unknown) => this.logger.error({ err, orgId }, 'audit ingest: after-sealing hook failed'));
    return result;
  }

  private async write(trx: Knex.Transaction, batch: SealedBatch): Promise<void> {
    const n = batch.events.length;
    if (this.db.kind !== 'pg') {
      // businessData as the canonical text that was hashed, never re-serialized from the object.
      const { canonical, hashes } = batch.rendered;
      const rows = batch.events.map((p, i) => ({
        ...p, business_data: canonical![i], seq: batch.firstSeq + i, payload_hash: hashes.slice(i * 64, i * 64 + 64), prev_hash: batch.links[i].prevHash,
        chain_hash: batch.links[i].chainHash, sealed_at: batch.sealedAt,
      }));
      await trx.raw(INSERT_SEALED, [JSON.stringify(rows)]);
      return;
    }
    // The transaction's own connection (knex's transaction client answers it), so COPY joins the transaction.
    const conn = (await trx.client.acquireConnection()) as { query: (stream: unknown) => NodeJS.WritableStream & { rowCount: number } };
    // Loaded on first use: a process that never ingests does not carry it.
    const { from: copyFrom } = await import('pg-copy-streams');
    const copy = conn.query(copyFrom(`copy core.audit_events (${COPY_COLUMNS}) from stdin`));
    await pipeline(Readable.from([copyBytes(batch)]), copy);
    if (copy.rowCount !== n) throw new Error(`audit ingest: copied ${copy.rowCount} rows of ${n}`);
  }
}

/** How long an idempotency key answers its first request's result. */
const IDEMPOTENCY_WINDOW = `interval '24 hours'`;

/**
 * The earlier ingestion under `key`, if one was sealed within 24 hours; older rows of the
 * organization are deleted first (the key is free again after that).
 */
async function priorIngestion(trx: Knex.Transaction, orgId: string, key: string): Promise<{ requestHash: string; result: Omit<IngestResult, 'ids' | 'replayed'> } | null> {
  await trx.raw(`delete from core.audit_ingest_keys where org_id = ?::uuid and created_at < now() - ${IDEMPOTENCY_WINDOW}`, [orgId]);
  const { rows } = await trx.raw(
    `select request_hash as fp, first_seq as f, last_seq as l, chain_hash as h,
       to_char(sealed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as s
     from core.audit_ingest_keys where org_id = ?::uuid and key = ?`, [orgId, key]);
  const row = rows[0] as { fp: string; f: number | string; l: number | string; h: string; s: string } | undefined;
  return row ? { requestHash: row.fp, result: { firstSeq: Number(row.f), lastSeq: Number(row.l), chainHash: row.h, sealedAt: row.s } } : null;
}

/** The ids of the organization's records at `from`..`to`, in seq order (= the request's order). */
async function idsBetween(trx: Knex.Transaction, orgId: string, from: number, to: number): Promise<string[]> {
  const { rows } = await trx.raw(`select id::text as id from core.audit_events where org_id = ?::uuid and seq between ? and ? order by seq`, [orgId, from, to]);
  return (rows as Array<{ id: string }>).map((r) => r.id);
}

/**
 * SHA-256 of what the client sent, per event: type, the `occurredAt` it gave (none: empty), actor,
 * app group and the canonical `businessData` — the same request gives the same fingerprint on a
 * retry even though ids and default times differ.
 */
function requestFingerprint(prepared: PreparedEvent[], canonical: string[], sent: Array<Omit<AuditEventInput, 'orgId'>>): string {
  let text = '';
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i];
    text += `${JSON.stringify([p.event_type, sent[i].occurredAt ? p.occurred_at.toISOString() : '', p.actor_type, p.actor_id, p.app_group_id])}${canonical[i]}\n`;
  }
  return digest('sha256', text, 'hex');
}

/** A batch ready to write: the prepared events, what was rendered before the lock, positions and links. */
interface SealedBatch {
  events: PreparedEvent[];
  /** Payload hashes, and the canonical texts (PGlite) or the COPY row prefixes (a server). */
  rendered: RenderedIngest;
  firstSeq: number;
  links: Array<{ prevHash: string; chainHash: string }>;
  sealedAt: string;
}

/** Longest tail of a COPY row: seq (at most 16 digits below 2^53), two 64-hex hashes, sealedAt (24), 3 tabs and the newline. */
const MAX_TAIL_BYTES = 16 + 64 + 64 + 24 + 4;

/**
 * The batch in COPY's text format, in one buffer: each prefix (already UTF-8) completed with seq,
 * prevHash, chainHash and sealedAt (ASCII). Only these short tails are encoded under the head's lock.
 */
function copyBytes(b: SealedBatch): Buffer {
  const { copy, ends } = b.rendered;
  const prefixes = Buffer.from(copy!.buffer, copy!.byteOffset, copy!.byteLength);
  const out = Buffer.allocUnsafe(prefixes.length + b.events.length * MAX_TAIL_BYTES);
  let at = 0;
  for (let i = 0; i < b.events.length; i++) {
    at += prefixes.copy(out, at, i === 0 ? 0 : ends![i - 1], ends![i]);
    at += out.write(`${b.firstSeq + i}\t${b.links[i].prevHash}\t${b.links[i].chainHash}\t${b.sealedAt}\n`, at, 'latin1');
  }
  return out.subarray(0, at);
}
