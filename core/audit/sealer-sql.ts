/**
 * The sealer's statements, each one round trip whatever the batch size: PostgreSQL renders the
 * records to hash as JSON text and copies the outbox rows into the chain itself, so the main
 * thread never builds, parses or serializes a record. Lists travel as one text parameter
 * (`string_to_array`) or one JSON parameter, never as one bound parameter per row; this works the
 * same on a PostgreSQL server (`pg`) and on embedded PGlite.
 *
 * @see ./sealer.ts, ARCHITECTURE.md "The audit chain"
 */
import type { Knex } from 'knex';
import type { SealBatchResult } from './chain/index.ts';

/** Outbox rows taken by one sealing transaction: `position` (as text) and `orgId`. */
export interface TakenRow {
  position: string;
  orgId: string;
}

/**
 * One organization's records rendered by PostgreSQL.
 *
 * Shape: `{ orgId, count, records }` — `records` is the JSON array text of `AuditRecordInput`
 * objects in outbox order (`id, orgId, seq, eventType, occurredAt, actor {type, id}, appGroupId
 * (null when absent or empty), businessData`), `seq` continuing the organization's locked head,
 * timestamps as `YYYY-MM-DDTHH:mm:ss.sssZ` exactly like `toAuditTimestamp`.
 */
export interface RenderedBatch {
  orgId: string;
  count: number;
  records: string;
}

/**
 * Takes up to `limit` outbox rows in `position` order, `FOR UPDATE SKIP LOCKED` (rows another
 * sealer holds are skipped).
 * @returns the rows taken, lightest form (no payload).
 */
export async function takeOutboxRows(trx: Knex.Transaction, limit: number): Promise<TakenRow[]> {
  const { rows } = await trx.raw(
    `select position::text as position, org_id::text as org from core.audit_outbox order by position limit ? for update skip locked`,
    [limit],
  );
  return (rows as Array<{ position: string; org: string }>).map((r) => ({ position: r.position, orgId: r.org }));
}

// `occurred_at` has millisecond precision (timestamptz(3)), so `MS` renders it exactly. An empty
// `app_group_id` is rendered as null (absent from the payload), as the record objects always had it.
const RENDER = `select o.org_id::text as org, count(*)::int as n,
  json_agg(json_build_object(
    'id', o.id, 'orgId', o.org_id, 'seq', h.seq + o.rn, 'eventType', o.event_type,
    'occurredAt', to_char(o.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'actor', json_build_object('type', o.actor_type, 'id', o.actor_id),
    'appGroupId', nullif(o.app_group_id, ''), 'businessData', o.business_data) order by o.rn)::text as records
from (select b.*, row_number() over (partition by b.org_id order by b.position) as rn
      from core.audit_outbox b where b.position = any(string_to_array(?, ',')::bigint[])) o
join core.audit_heads h on h.org_id = o.org_id
group by o.org_id, h.seq
order by o.org_id`;

/**
 * Renders the taken rows as each organization's records, numbered from its head. Every head must
 * already be locked by this transaction (the `seq` values read it).
 * @param positions - the taken rows' positions.
 * @returns one {@link RenderedBatch} per organization, in organization id order.
 */
export async function renderRecords(trx: Knex.Transaction, positions: string[]): Promise<RenderedBatch[]> {
  const { rows } = await trx.raw(RENDER, [positions.join(',')]);
  return (rows as Array<{ org: string; n: number; records: string }>).map((r) => ({ orgId: r.org, count: Number(r.n), records: r.records }));
}

const INSERT_SEALED = `insert into core.audit_events
  (id, org_id, seq, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data, payload_hash, prev_hash, chain_hash, sealed_at)
select o.id, o.org_id, s.seq, o.event_type, o.occurred_at, o.actor_type, o.actor_id, o.app_group_id, o.business_data,
  s.payload_hash, s.prev_hash, s.chain_hash, ?::timestamptz
from json_to_recordset(?::json) as s(id uuid, seq bigint, payload_hash text, prev_hash text, chain_hash text)
join core.audit_outbox o on o.id = s.id`;

/**
 * Writes the sealed rows of every organization in one statement: each outbox row (still locked by
 * this transaction, so exactly what was hashed) with its `seq`, three hashes and `sealedAt`.
 * @param results - per organization, the first `seq` of its batch and the hashes `sealBatch` returned.
 * @param sealedAt - `YYYY-MM-DDTHH:mm:ss.sssZ`, the value that was hashed.
 * @returns rows inserted.
 */
export async function insertSealed(trx: Knex.Transaction, results: Array<{ firstSeq: number; result: SealBatchResult }>, sealedAt: string): Promise<number> {
  const rows: Array<Record<string, unknown>> = [];
  for (const { firstSeq, result } of results) {
    result.sealed.forEach((s, i) => rows.push({ id: s.id, seq: firstSeq + i, payload_hash: s.payloadHash, prev_hash: s.prevHash, chain_hash: s.chainHash }));
  }
  const res = await trx.raw(INSERT_SEALED, [sealedAt, JSON.stringify(rows)]);
  return Number(res.rowCount);
}

/**
 * Advances every sealed organization's head in one statement.
 * @param heads - `{orgId, seq, chainHash}` of each organization's last sealed record.
 * @param sealedAt - becomes the heads' `updated_at`.
 */
export async function advanceHeads(trx: Knex.Transaction, heads: SealBatchResult['head'][], sealedAt: string): Promise<void> {
  await trx.raw(
    `update core.audit_heads h set seq = v.seq, chain_hash = v.chain_hash, updated_at = ?::timestamptz
     from json_to_recordset(?::json) as v(org_id uuid, seq bigint, chain_hash text) where h.org_id = v.org_id`,
    [sealedAt, JSON.stringify(heads.map((h) => ({ org_id: h.orgId, seq: h.seq, chain_hash: h.chainHash })))],
  );
}

/** Deletes the drained outbox rows by position. */
export async function deleteDrained(trx: Knex.Transaction, positions: string[]): Promise<void> {
  await trx.raw(`delete from core.audit_outbox where position = any(string_to_array(?, ',')::bigint[])`, [positions.join(',')]);
}
