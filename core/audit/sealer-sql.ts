/**
 * The sealer's statements, each one round trip whatever the batch size: PostgreSQL renders the
 * records to hash as JSON text and copies the outbox rows into the chain itself, so the main
 * thread never builds, parses or serializes a record. Lists travel as one text parameter
 * (`string_to_array`) or one JSON parameter, never as one bound parameter per row; this works the
 * same on a PostgreSQL server (`pg`) and on embedded PGlite.
 *
 * @see ./sealer.ts, docs/audit.md
 */
import type { Knex } from 'knex';
import type { ChainHead, SealBatchResult } from './chain/index.ts';

/**
 * One organization's share of the rows a sealing transaction took, rendered by PostgreSQL.
 *
 * Shape: `{ orgId, count, positions, records }` — `positions` is the rows' outbox positions as a
 * comma-separated list; `records` is the JSON array text of `AuditRecordInput` objects in outbox
 * order (`id, orgId, seq, eventType, occurredAt, actor {type, id}, appGroupId (null when absent or
 * empty), businessData`) with `seq` numbered 1, 2, … within the batch (add the organization's
 * head `seq`), timestamps as `YYYY-MM-DDTHH:mm:ss.sssZ` exactly like `toAuditTimestamp`.
 */
export interface RenderedBatch {
  orgId: string;
  count: number;
  positions: string;
  records: string;
}

// `occurred_at` has millisecond precision (timestamptz(3)), so `MS` renders it exactly. An empty
// `app_group_id` is rendered as null (absent from the payload), as the record objects always had it.
// A CTE holding FOR UPDATE is never inlined: the lock and the limit apply to the outbox scan.
const takeAndRenderSql = (where: string) => `with taken as (
  select position, id, org_id, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data
  from core.audit_outbox ${where} order by position limit ? for update skip locked
), numbered as (
  select t.*, row_number() over (partition by t.org_id order by t.position) as rn from taken t
)
select org_id::text as org, count(*)::int as n, string_agg(position::text, ',' order by position) as positions,
  json_agg(json_build_object(
    'id', id, 'orgId', org_id, 'seq', rn, 'eventType', event_type,
    'occurredAt', to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'actor', json_build_object('type', actor_type, 'id', actor_id),
    'appGroupId', nullif(app_group_id, ''), 'businessData', business_data) order by rn)::text as records
from numbered group by org_id order by org_id`;
const TAKE_AND_RENDER = takeAndRenderSql('');
const TAKE_AND_RENDER_ORG = takeAndRenderSql('where org_id = ?::uuid');

/**
 * Takes up to `limit` outbox rows in `position` order, `FOR UPDATE SKIP LOCKED` (rows another
 * sealer holds are skipped), and renders them per organization — one statement.
 * @param orgId - take only this organization's rows (the sealer's isolation path).
 * @returns one {@link RenderedBatch} per organization, in organization id order; `[]` when nothing is free.
 */
export async function takeAndRender(trx: Knex.Transaction, limit: number, orgId?: string): Promise<RenderedBatch[]> {
  const { rows } = await (orgId ? trx.raw(TAKE_AND_RENDER_ORG, [orgId, limit]) : trx.raw(TAKE_AND_RENDER, [limit]));
  return (rows as Array<{ org: string; n: number; positions: string; records: string }>).map((r) => ({
    orgId: r.org, count: Number(r.n), positions: r.positions, records: r.records,
  }));
}

/**
 * Locks the chain heads of `orgIds` (creating missing ones at seq 0 / genesis), in organization id
 * order so that concurrent sealers never deadlock: new heads are inserted in that order first,
 * then every head is locked `FOR UPDATE` in that order. Two statements whatever the count.
 * @param orgIds - distinct organization ids.
 * @returns each organization's head `{orgId, seq, chainHash}` as locked.
 */
export async function lockHeads(trx: Knex.Transaction, orgIds: string[], genesisHash: string): Promise<Map<string, ChainHead>> {
  const list = [...orgIds].sort().join(',');
  await trx.raw(
    `insert into core.audit_heads (org_id, seq, chain_hash, updated_at)
     select o, 0, ?, now() from unnest(string_to_array(?, ',')::uuid[]) as o order by o on conflict (org_id) do nothing`,
    [genesisHash, list],
  );
  const { rows } = await trx.raw(
    `select org_id::text as org, seq, chain_hash as hash from core.audit_heads
     where org_id = any(string_to_array(?, ',')::uuid[]) order by org_id for update`,
    [list],
  );
  const heads = new Map<string, ChainHead>();
  for (const r of rows as Array<{ org: string; seq: number | string; hash: string }>) heads.set(r.org, { orgId: r.org, seq: Number(r.seq), chainHash: r.hash });
  if (heads.size !== orgIds.length) throw new Error(`audit sealer: locked ${heads.size} chain heads of ${orgIds.length}`);
  return heads;
}

const SEAL_ROWS = `with drained as (
  delete from core.audit_outbox where position = any(string_to_array(?, ',')::bigint[])
  returning id, org_id, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data
)
insert into core.audit_events
  (id, org_id, seq, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data, payload_hash, prev_hash, chain_hash, sealed_at)
select d.id, d.org_id, s.seq, d.event_type, d.occurred_at, d.actor_type, d.actor_id, d.app_group_id, d.business_data,
  s.payload_hash, s.prev_hash, s.chain_hash, ?::timestamptz
from drained d join json_to_recordset(?::json) as s(id uuid, seq bigint, payload_hash text, prev_hash text, chain_hash text) on s.id = d.id`;

/**
 * Moves the taken rows from the outbox into the chain in one statement: deletes them (they are
 * locked by this transaction, so exactly what was hashed) and inserts each with its `seq`, three
 * hashes and `sealedAt`.
 * @param positions - every taken row's position (comma-separated lists, one per organization).
 * @param results - per organization, the hashes `sealBatch` returned (its records carry their final `seq`).
 * @param sealedAt - `YYYY-MM-DDTHH:mm:ss.sssZ`, the value that was hashed.
 * @returns rows inserted (must equal the rows taken; the caller checks).
 */
export async function sealRows(trx: Knex.Transaction, positions: string[], results: SealBatchResult[], sealedAt: string): Promise<number> {
  const rows: Array<Record<string, unknown>> = [];
  for (const result of results) {
    const firstSeq = result.head.seq - result.sealed.length + 1;
    result.sealed.forEach((s, i) => rows.push({ id: s.id, seq: firstSeq + i, payload_hash: s.payloadHash, prev_hash: s.prevHash, chain_hash: s.chainHash }));
  }
  const res = await trx.raw(SEAL_ROWS, [positions.join(','), sealedAt, JSON.stringify(rows)]);
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

/**
 * The organizations with events in the outbox, oldest waiting first (the isolation path seals them
 * one by one). Reads without locking.
 * @returns organization ids.
 */
export async function outboxOrganizations(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw(`select org_id::text as org from core.audit_outbox group by org_id order by min(position)`);
  return (rows as Array<{ org: string }>).map((r) => r.org);
}

/** The position of an organization's oldest outbox row (no lock), or null. */
export async function oldestPosition(knex: Knex, orgId: string): Promise<string | null> {
  const { rows } = await knex.raw(`select position::text as p from core.audit_outbox where org_id = ?::uuid order by position limit 1`, [orgId]);
  return (rows as Array<{ p: string }>)[0]?.p ?? null;
}

/**
 * Moves one outbox row to `core.audit_dead_letters` with `reason`, in one statement (the row is
 * locked `FOR UPDATE SKIP LOCKED`; its data is copied by PostgreSQL, never parsed here).
 * @param position - the outbox position of the event that failed on its own.
 * @param reason - why it cannot be sealed (kept to 2,000 characters).
 * @param at - `dead_at`, ISO 8601.
 * @returns the dead-lettered event's id, or null when the row is gone or locked by another sealer.
 */
export async function deadLetter(trx: Knex.Transaction, position: string, reason: string, at: string): Promise<string | null> {
  const { rows } = await trx.raw(
    `with victim as (
       select position from core.audit_outbox where position = ?::bigint for update skip locked
     ), moved as (
       delete from core.audit_outbox o using victim v where o.position = v.position
       returning o.position, o.id, o.org_id, o.event_type, o.occurred_at, o.actor_type, o.actor_id, o.app_group_id, o.business_data, o.enqueued_at
     )
     insert into core.audit_dead_letters (position, id, org_id, event_type, occurred_at, actor_type, actor_id, app_group_id, business_data, enqueued_at, reason, dead_at)
     select m.*, ?, ?::timestamptz from moved m
     returning id::text as id`,
    [position, reason.slice(0, 2000), at],
  );
  return (rows as Array<{ id: string }>)[0]?.id ?? null;
}
