/**
 * Signed checkpoints of an organization's chain head, and the check of a run of records against
 * one. A checkpoint is what catches a database administrator who rewrote a row and recomputed
 * every later hash: the chain still links, but no longer ends in the signed chainHash.
 *
 * Format: a compact JWS (a JWT) signed ES256 with the platform audit key.
 * - protected header `{ alg: 'ES256', kid, typ: 'aerie-audit-checkpoint+jwt' }`
 * - payload `{ orgId, seq, chainHash, sealedAt, iat }` — `seq`/`chainHash` of the head record,
 *   `sealedAt` of that same record (already inside its chainHash; repeated so that the
 *   checkpoint alone says up to when it vouches), `iat` the signing time (seconds, informational).
 *
 * @see docs/audit.md
 */
import { SignJWT, createLocalJWKSet, jwtVerify, type CryptoKey, type JSONWebKeySet, type KeyObject } from 'jose';
import { AUDIT_TIMESTAMP, type SealedAuditRecord } from './audit-record.ts';

/** JWS `typ` header of an audit checkpoint (explicit typing, RFC 8725 §3.11). @see docs/audit.md */
export const CHECKPOINT_TYP = 'aerie-audit-checkpoint+jwt';

/** The only algorithm a checkpoint may use. @see docs/audit.md */
export const CHECKPOINT_ALG = 'ES256';

/**
 * The signed statement: "organization `orgId`'s record `seq`, sealed at `sealedAt`, has chainHash `chainHash`".
 *
 * Shape: `{ orgId, seq (integer ≥ 1), chainHash (64 lowercase hex), sealedAt (YYYY-MM-DDTHH:mm:ss.sssZ) }`.
 *
 * @see docs/audit.md
 */
export interface CheckpointClaims {
  orgId: string;
  seq: number;
  chainHash: string;
  sealedAt: string;
}

/**
 * A checkpoint whose signature checked out, with the `kid` that verified it.
 *
 * @see docs/audit.md
 */
export interface VerifiedCheckpoint extends CheckpointClaims {
  kid: string;
}

/**
 * Thrown by {@link verifyCheckpoint} when a checkpoint is not a valid, well-formed ES256
 * checkpoint signed by a key of the JWKS. `joseCode` carries jose's error code when jose raised it
 * (e.g. `ERR_JWS_SIGNATURE_VERIFICATION_FAILED`, `ERR_JWKS_NO_MATCHING_KEY`).
 *
 * @see docs/audit.md
 */
export class CheckpointVerificationError extends Error {
  static readonly code = 'AUDIT_CHECKPOINT_INVALID';
  readonly code = CheckpointVerificationError.code;
  constructor(message: string, readonly joseCode?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CheckpointVerificationError';
  }
}

function assertClaims(value: Record<string, unknown>): CheckpointClaims {
  const { orgId, seq, chainHash, sealedAt } = value;
  if (typeof orgId !== 'string' || orgId === '') throw new TypeError('checkpoint orgId must be a non-empty string');
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw new TypeError('checkpoint seq must be an integer >= 1');
  if (typeof chainHash !== 'string' || !/^[0-9a-f]{64}$/.test(chainHash)) throw new TypeError('checkpoint chainHash must be 64 lowercase hex');
  if (typeof sealedAt !== 'string' || !AUDIT_TIMESTAMP.test(sealedAt)) throw new TypeError('checkpoint sealedAt must be YYYY-MM-DDTHH:mm:ss.sssZ');
  return { orgId, seq, chainHash, sealedAt };
}

/**
 * Sign an organization's chain head with the platform audit key.
 *
 * @param head - `{orgId, seq, chainHash, sealedAt}` of the head record (extra fields are ignored).
 * @param privateKey - the platform audit private key (P-256), a CryptoKey or KeyObject.
 * @param kid - the key id under which the public key is published in the audit JWKS.
 * @returns compact JWS `header.payload.signature`.
 * @throws TypeError when `head` is malformed; jose errors when the key is not a P-256 private key.
 * @example const jws = await signCheckpoint({ orgId, seq: 500, chainHash, sealedAt }, privateKey, 'audit-2026-10');
 * @see docs/audit.md
 */
export async function signCheckpoint(head: CheckpointClaims, privateKey: CryptoKey | KeyObject, kid: string): Promise<string> {
  const claims = assertClaims(head as unknown as Record<string, unknown>);
  if (typeof kid !== 'string' || kid === '') throw new TypeError('checkpoint kid must be a non-empty string');
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: CHECKPOINT_ALG, kid, typ: CHECKPOINT_TYP })
    .setIssuedAt()
    .sign(privateKey);
}

/**
 * Verify a checkpoint's signature against a JWKS (offline: a local key set, no fetching).
 *
 * Requires `alg` ES256, `typ` {@link CHECKPOINT_TYP}, a `kid` found in the set, and well-formed claims.
 *
 * @param jws - compact JWS produced by {@link signCheckpoint}.
 * @param jwks - the platform audit JWKS `{ keys: [...] }`.
 * @returns the {@link VerifiedCheckpoint}.
 * @throws CheckpointVerificationError on any failure.
 * @example const cp = await verifyCheckpoint(jws, jwks); // { orgId, seq, chainHash, sealedAt, kid }
 * @see docs/audit.md
 */
export async function verifyCheckpoint(jws: string, jwks: JSONWebKeySet): Promise<VerifiedCheckpoint> {
  let result;
  try {
    result = await jwtVerify(jws, createLocalJWKSet(jwks), { algorithms: [CHECKPOINT_ALG], typ: CHECKPOINT_TYP });
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new CheckpointVerificationError(`checkpoint signature invalid: ${(err as Error).message}`, code, { cause: err });
  }
  try {
    return { ...assertClaims(result.payload), kid: String(result.protectedHeader.kid) };
  } catch (err) {
    throw new CheckpointVerificationError(`checkpoint malformed: ${(err as Error).message}`, undefined, { cause: err });
  }
}

/**
 * Outcome of {@link verifyAgainstCheckpoint}.
 *
 * Shape: `{ ok: true, seq, id }` or `{ ok: false, seq, id?, reason }` where `reason` is
 * - `not_covered` — the run holds no record of that organization with that `seq`;
 * - `chain_hash_mismatch` — the record at `seq` has another chainHash than the signed one;
 * - `sealed_at_mismatch` — the chainHash matches but the record's sealedAt differs from the signed
 *   one: the sealer signed a wrong time (the record itself is intact, its sealedAt is hashed).
 *
 * @see docs/audit.md
 */
export type CheckpointMatch =
  | { ok: true; seq: number; id: string }
  | { ok: false; seq: number; id?: string; reason: 'not_covered' | 'chain_hash_mismatch' | 'sealed_at_mismatch' };

/**
 * Tell whether a run of records contains the checkpointed record with exactly the signed chainHash
 * (and sealedAt).
 *
 * Combined with a passing `verifyRecords` over the same run, a match proves every record of the
 * run up to `checkpoint.seq` is as sealed. Records after the last matched checkpoint are
 * protected by the hash links only.
 *
 * @param records - sealed records (any order, any organizations; only `orgId`/`seq` are matched).
 * @param checkpoint - verified claims, usually from {@link verifyCheckpoint}.
 * @returns {@link CheckpointMatch}.
 * @example verifyAgainstCheckpoint(records, await verifyCheckpoint(jws, jwks))
 * @see docs/audit.md
 */
export function verifyAgainstCheckpoint(records: readonly SealedAuditRecord[], checkpoint: CheckpointClaims): CheckpointMatch {
  const { orgId, seq } = checkpoint;
  const record = records.find((r) => r.orgId === orgId && r.seq === seq);
  if (!record) return { ok: false, seq, reason: 'not_covered' };
  if (record.chainHash !== checkpoint.chainHash) return { ok: false, seq, id: record.id, reason: 'chain_hash_mismatch' };
  if (record.sealedAt !== checkpoint.sealedAt) return { ok: false, seq, id: record.id, reason: 'sealed_at_mismatch' };
  return { ok: true, seq, id: record.id };
}
