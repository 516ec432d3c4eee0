import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, type CryptoKey } from 'jose';
import type { Knex } from 'knex';
import type { EnvelopeCipher } from '../crypto/envelope.ts';
import { CHECKPOINT_ALG } from './chain/index.ts';

/** `purpose` of the audit checkpoint key in `core.platform_keys`. */
export const AUDIT_KEY_PURPOSE = 'audit.checkpoint';

/** The platform audit key: its `kid` and private key (P-256, ES256). */
export interface PlatformAuditKey {
  kid: string;
  privateKey: CryptoKey;
}

const aad = (kid: string) => `core.platform_keys:${kid}`;

/**
 * The active platform audit key, generated on first use and kept envelope-encrypted in
 * `core.platform_keys`; concurrent first calls (several processes) converge on one key.
 * @param knex - database handle.
 * @param envelope - `core.crypto.envelope` (master key).
 * @returns {@link PlatformAuditKey}.
 * @example const { kid, privateKey } = await loadOrCreateAuditKey(db.knex, crypto.envelope);
 * @see docs/audit.md "Checkpoints"
 */
export async function loadOrCreateAuditKey(knex: Knex, envelope: EnvelopeCipher): Promise<PlatformAuditKey> {
  let row = await knex('core.platform_keys').where({ purpose: AUDIT_KEY_PURPOSE, active: true }).first();
  if (!row) {
    const { privateKey, publicKey } = await generateKeyPair(CHECKPOINT_ALG, { extractable: true });
    const kid = `audit-${new Date().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: CHECKPOINT_ALG, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    await knex.raw(
      `insert into core.platform_keys (kid, purpose, alg, public_jwk, private_jwk_enc, active, created_at)
       values (?, ?, ?, ?, ?, true, now()) on conflict do nothing`,
      [kid, AUDIT_KEY_PURPOSE, CHECKPOINT_ALG, JSON.stringify(publicJwk), envelope.encrypt(JSON.stringify(privateJwk), aad(kid))],
    );
    row = await knex('core.platform_keys').where({ purpose: AUDIT_KEY_PURPOSE, active: true }).first();
  }
  const jwk = JSON.parse(envelope.decryptText(row.privateJwkEnc, aad(row.kid))) as JWK;
  return { kid: row.kid, privateKey: (await importJWK(jwk, CHECKPOINT_ALG)) as CryptoKey };
}

/**
 * The platform audit JWKS: public keys of every audit key ever used (active and retired), so
 * every stored checkpoint stays verifiable.
 * @param knex - database handle.
 * @returns `{ keys: [...] }` (may be empty before the first checkpoint).
 * @see docs/audit.md
 */
export async function auditJwks(knex: Knex): Promise<JSONWebKeySet> {
  const rows = await knex('core.platform_keys').where({ purpose: AUDIT_KEY_PURPOSE }).orderBy('createdAt');
  return { keys: rows.map((r: { publicJwk: JWK | string }) => (typeof r.publicJwk === 'string' ? JSON.parse(r.publicJwk) : r.publicJwk)) };
}
