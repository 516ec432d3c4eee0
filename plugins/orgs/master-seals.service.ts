import { generateKeyPairSync, createPrivateKey, sign, type JsonWebKey } from 'node:crypto';
import type { Knex } from 'knex';
import { calculateJwkThumbprint } from 'jose';
import { coreRefs, inject, injectable, type Clock, type CryptoService, type Database } from '../../core/index.ts';
import { MasterSealModel } from './models/organization.model.ts';
import type { MasterSealsService as MasterSealsServiceApi } from './service-interfaces.ts';

/** Algorithm of every Org Master Seal: ECDSA P-256 with SHA-256 (the curve of passkeys and roost tickets). */
export const MASTER_SEAL_ALG = 'ES256';

/** An organization's Org Master Seal as members see it (never the private part). */
export interface MasterSealDto {
  /** RFC 7638 JWK thumbprint of the public key. */
  kid: string;
  alg: typeof MASTER_SEAL_ALG;
  /** `{kty: 'EC', crv: 'P-256', x, y, kid, alg, use: 'sig'}`. */
  publicJwk: JsonWebKey;
  createdAt: string;
}

const aad = (orgId: string) => `orgs.master_seal:${orgId}`;

/**
 * `orgs.masterSeals`: the organization signing key pair ("Org Master Seal"). Issued at creation for
 * `Corporation` organizations and through `upgrade-type` for others; the private JWK is stored only
 * envelope-encrypted (`crypto.envelope`, AAD `orgs.master_seal:<orgId>`).
 * @see docs/api/public-v1.md
 */
@injectable()
export class MasterSealsService implements MasterSealsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Issues the organization's master seal in `trx`, or returns the one it has (idempotent). */
  async issue(orgId: string, byAccountId: string, trx: Knex.Transaction): Promise<MasterSealDto> {
    const existing = await this.get(orgId, trx);
    if (existing) return existing;
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pub = publicKey.export({ format: 'jwk' });
    const kid = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: pub.x!, y: pub.y! }, 'sha256');
    const publicJwk: JsonWebKey = { kty: 'EC', crv: 'P-256', x: pub.x, y: pub.y, kid, alg: MASTER_SEAL_ALG, use: 'sig' };
    const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: MASTER_SEAL_ALG };
    await MasterSealModel.query(trx).insert({
      orgId, kid, alg: MASTER_SEAL_ALG, publicJwk: JSON.stringify(publicJwk),
      privateJwkEnc: this.crypto.envelope.encrypt(JSON.stringify(privateJwk), aad(orgId)), createdBy: byAccountId, createdAt: this.clock.now(),
    });
    return (await this.get(orgId, trx))!;
  }

  /** The organization's master seal (public part), or null. */
  async get(orgId: string, trx?: Knex.Transaction): Promise<MasterSealDto | null> {
    const row = await MasterSealModel.query(trx ?? this.db.knex).findById(orgId);
    return row ? { kid: row.kid, alg: MASTER_SEAL_ALG, publicJwk: row.publicJwk as JsonWebKey, createdAt: new Date(row.createdAt).toISOString() } : null;
  }

  /** Whether the organization has a master seal (half of `ready`). */
  async has(orgId: string): Promise<boolean> {
    return !!(await MasterSealModel.query(this.db.knex).findById(orgId).select('orgId'));
  }

  /**
   * Signs `data` with the master seal: ECDSA P-256 / SHA-256 as 64-byte `r‖s` (JWS ES256 form).
   * @throws Error when the organization has none or the envelope does not decrypt.
   */
  async sign(orgId: string, data: Uint8Array): Promise<Buffer> {
    const row = await MasterSealModel.query(this.db.knex).findById(orgId);
    if (!row) throw new Error(`organization ${orgId} has no master seal`);
    const jwk = JSON.parse(this.crypto.envelope.decryptText(row.privateJwkEnc, aad(orgId))) as JsonWebKey;
    return sign('sha256', data, { key: createPrivateKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' });
  }
}
