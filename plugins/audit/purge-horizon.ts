import type { Knex } from 'knex';
import type { JSONWebKeySet } from 'jose';
import { verifyCheckpoint } from '../../core/index.ts';

const TABLE = 'audit.purge_horizons';

/**
 * An organization's purge horizon (`audit.purge_horizons`): the hot rows `seq` 1..`throughSeq` were
 * purged from `core.audit_events` (they stay in the day files). `chainHash` and `sealedAt` are
 * those of record `throughSeq`, `day` the day file holding it, `checkpointJws` the signed checkpoint
 * on it (the one embedded in that day file), `purgedRows` the rows purged so far.
 * @see docs/audit.md "Retention"
 */
export interface PurgeHorizon {
  orgId: string;
  throughSeq: number;
  chainHash: string;
  sealedAt: string;
  day: string;
  checkpointJws: string;
  purgedRows: number;
  updatedAt: Date;
}

/**
 * The organization's purge horizon, or undefined when nothing was purged.
 * @param knex - the database (or a transaction).
 * @param orgId - organization id.
 */
export async function readPurgeHorizon(knex: Knex | Knex.Transaction, orgId: string): Promise<PurgeHorizon | undefined> {
  const r = await knex(TABLE).where({ orgId }).first();
  if (!r) return undefined;
  return {
    orgId: r.orgId, throughSeq: Number(r.throughSeq), chainHash: r.chainHash, sealedAt: new Date(r.sealedAt).toISOString(), day: r.day,
    checkpointJws: r.checkpointJws, purgedRows: Number(r.purgedRows), updatedAt: new Date(r.updatedAt),
  };
}

/**
 * Writes (inserts or advances) the organization's purge horizon inside the purge's transaction.
 * @param trx - the purge transaction.
 * @param horizon - the new horizon.
 */
export async function writePurgeHorizon(trx: Knex.Transaction, horizon: PurgeHorizon): Promise<void> {
  const { orgId, ...rest } = horizon;
  await trx(TABLE).insert({ orgId, ...rest, sealedAt: new Date(rest.sealedAt) }).onConflict('orgId').merge();
}

/**
 * Outcome of {@link checkPurgeHorizon}: `ok` with the checkpoint's `kid`, or the reason it cannot
 * anchor verification (`detail`).
 */
export type HorizonCheck = { ok: true; kid: string } | { ok: false; detail: string };

/**
 * Checks that a purge horizon is vouched for by its signed checkpoint: the JWS verifies against
 * `jwks` and signs exactly this organization's `throughSeq`, `chainHash` and `sealedAt`. Only then
 * may verification of the remaining hot rows start from `startPrevHash` = the horizon's chainHash.
 * @param horizon - the stored horizon.
 * @param jwks - the platform audit JWKS.
 * @returns {@link HorizonCheck}.
 * @see docs/audit.md "Retention"
 */
export async function checkPurgeHorizon(horizon: PurgeHorizon, jwks: JSONWebKeySet): Promise<HorizonCheck> {
  let claims;
  try {
    claims = await verifyCheckpoint(horizon.checkpointJws, jwks);
  } catch (err) {
    return { ok: false, detail: `purge horizon checkpoint: ${(err as Error).message}` };
  }
  if (claims.orgId !== horizon.orgId || claims.seq !== horizon.throughSeq || claims.chainHash !== horizon.chainHash || claims.sealedAt !== horizon.sealedAt) {
    return { ok: false, detail: `purge horizon (seq ${horizon.throughSeq}, chainHash ${horizon.chainHash}) differs from its signed checkpoint (seq ${claims.seq}, chainHash ${claims.chainHash})` };
  }
  return { ok: true, kid: claims.kid };
}
