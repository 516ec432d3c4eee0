import { createPrivateKey, createPublicKey, generateKeyPair, type JsonWebKey, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { calculateJwkThumbprint } from 'jose';
import { coreRefs, inject, injectable, type AerieConfig, type AuditService, type Clock, type CryptoService, type Database } from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { rs256Signer } from './compact-jws.ts';
import { keysInternalRefs } from './internal-refs.ts';
import { LRUCache } from 'lru-cache';
import type { KeyStatusService } from './key-status.service.ts';
import type { SigningKeysService as SigningKeysServiceApi } from './service-interfaces.ts';

const generateRsa = promisify(generateKeyPair);

/** Parsed keys kept per process (an organization has one active key; retired ones fall out). */
const KEY_CACHE_SIZE = 10_000;

/** Access tokens are typed per RFC 9068, so no other JWT signed by the same key passes as one. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** A published verification key (RFC 7517). */
export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  use: 'sig';
  alg: 'RS256';
}

/** The only JWS algorithm Aerie signs and accepts for organization tokens. */
export const JWS_ALG = 'RS256';

/** Everything needed to sign for an organization, parsed once. */
export interface Signer {
  kid: string;
  orgId: string;
  slug: string;
  issuer: string;
  /** The private key, parsed once. */
  privateKey: KeyObject;
  /**
   * Signs an access token (RFC 9068) with this key: compact JWS with the header exactly
   * `{"alg": "RS256", "typ": "at+jwt", "kid": <kid>}` and `claims` as given (`iat` and `exp` are the
   * caller's, in Unix seconds; nothing is added). The RSA signature is made by `crypto.sign` on
   * libuv's thread pool, off the event loop, with the parsed key cached ({@link rs256Signer}). Every
   * verification stays on `jose` (docs/api/keys.md, "The token").
   * @returns the compact JWS
   * @throws TypeError (rejected) for claims that are not a plain object or a non-integer `iat`/`exp`/`nbf`
   */
  sign(claims: Record<string, unknown>): Promise<string>;
}

/** An organization's active signing key. */
export interface ActiveKey {
  kid: string;
  slug: string;
}

/** Everything needed to verify a `kid`, parsed once. */
export interface Verifier {
  kid: string;
  orgId: string;
  slug: string;
  publicKey: KeyObject;
  /** Retired when it was loaded (later retirements: {@link KeyStatusService}). */
  retired: boolean;
}

interface SigningKeyRow {
  kid: string;
  orgId: string;
  orgSlug: string;
  publicJwk: PublicJwk;
  privateKeyEnc: string;
  retiredAt: Date | null;
}

/**
 * `keys.signingKeys`: each organization's RS256 signing key (RSA-2048) — created with the
 * organization (or on first need for organizations older than this plugin), private key
 * envelope-encrypted, published as the issuer's JWKS, rotated on demand (the old key leaves the JWKS
 * and stops verifying at once).
 * @see docs/api/keys.md, docs/api/orgs.md (signing-key/rotate)
 */
@injectable()
export class SigningKeysService implements SigningKeysServiceApi {
  private readonly signers = new LRUCache<string, Signer>({ max: KEY_CACHE_SIZE });
  private readonly verifiers = new LRUCache<string, Verifier>({ max: KEY_CACHE_SIZE });
  /** Active key per organization id, used while the key-status view is in sync. */
  private readonly active = new LRUCache<string, ActiveKey>({ max: KEY_CACHE_SIZE });

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(orgsRefs.organizations.id) private readonly organizations: OrganizationsService,
    @inject(keysInternalRefs.keyStatus.id) private readonly keyStatus: KeyStatusService,
  ) {
    keyStatus.onChange((change) => {
      if (change.type === 'retired') {
        this.active.delete(change.orgId);
        this.signers.delete(change.kid);
      } else if (change.type === 'resync') {
        this.active.clear();
      }
    });
  }


  /** `{base_url}/api/public/orgs/{slug}`: the organization as token issuer. */
  issuer(slug: string): string {
    return `${this.config.baseUrl}/api/public/orgs/${slug}`;
  }

  /** The `aud` of machine tokens: the organization's `/api/org/{slug}` API. */
  audience(slug: string): string {
    return `${this.config.baseUrl}/api/org/${slug}`;
  }

  /**
   * Creates the organization's first key in the creation transaction (`orgs.onCreate`).
   * @returns the new `kid`
   */
  async createFor(org: { id: string; slug: string }, trx: Knex.Transaction): Promise<string> {
    return this.insertKey(org, trx);
  }

  /**
   * The organization's active key id, creating the key now when the organization has none (it was
   * created before this plugin was enabled). Concurrent first uses agree through the unique index.
   * @throws Error when the organization does not exist
   */
  async ensureActive(orgId: string, slug?: string): Promise<ActiveKey> {
    const row = await this.db.knex('keys.signing_keys').where({ orgId }).whereNull('retiredAt').first('kid', 'orgSlug');
    if (row) return { kid: row.kid, slug: row.orgSlug };
    const orgSlug = slug ?? (await this.organizations.findById(orgId))?.slug;
    if (!orgSlug) throw new Error(`unknown organization ${orgId}`);
    try {
      const kid = await this.db.transaction((trx) => this.insertKey({ id: orgId, slug: orgSlug }, trx));
      return { kid, slug: orgSlug };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const winner = await this.db.knex('keys.signing_keys').where({ orgId }).whereNull('retiredAt').first('kid', 'orgSlug');
      if (!winner) throw err;
      return { kid: winner.kid, slug: winner.orgSlug };
    }
  }

  /**
   * The organization's active key id and slug: from memory while the key-status view is in sync,
   * else from the database (creating the key on first need).
   * @throws Error when the organization does not exist
   */
  async activeFor(orgId: string): Promise<ActiveKey> {
    const hit = this.rememberedActive(orgId);
    if (hit) return hit;
    const version = this.keyStatus.version;
    const found = await this.ensureActive(orgId);
    this.prime(orgId, found, version);
    return found;
  }

  /**
   * The organization's active key when this process remembers it (key-status view in sync), without
   * a query or a promise; `undefined` otherwise (ask {@link activeFor}).
   */
  rememberedActive(orgId: string): ActiveKey | undefined {
    return this.keyStatus.synced ? this.active.get(orgId) : undefined;
  }

  /**
   * Remembers an organization's active key read from the database at key-status `version`; ignored
   * when a change happened since (the read may be stale).
   */
  prime(orgId: string, active: ActiveKey, version: number): void {
    if (this.keyStatus.synced && this.keyStatus.version === version) this.active.set(orgId, active);
  }

  /**
   * The parsed signing material of `kid` (decrypted and parsed once per process).
   * @throws Error when the key does not exist
   */
  async signer(kid: string): Promise<Signer> {
    const cached = this.signers.get(kid);
    if (cached) return cached;
    const row = await this.row(kid);
    if (!row) throw new Error(`unknown signing key ${kid}`);
    const pem = this.crypto.envelope.decryptText(row.privateKeyEnc, aad(row.orgId, kid));
    const privateKey = createPrivateKey(pem);
    const signer: Signer = {
      kid, orgId: row.orgId, slug: row.orgSlug, issuer: this.issuer(row.orgSlug),
      privateKey, sign: rs256Signer(privateKey, { alg: JWS_ALG, typ: ACCESS_TOKEN_TYP, kid }),
    };
    this.signers.set(kid, signer);
    return signer;
  }

  /**
   * The parsed public key of `kid`, active or retired (callers check status per request), or
   * `undefined` for an unknown `kid`.
   */
  async verifier(kid: string): Promise<Verifier | undefined> {
    const cached = this.verifiers.get(kid);
    if (cached) return cached;
    const row = await this.row(kid);
    if (!row) return undefined;
    const verifier: Verifier = {
      kid, orgId: row.orgId, slug: row.orgSlug, retired: row.retiredAt !== null,
      publicKey: createPublicKey({ key: row.publicJwk as unknown as JsonWebKey, format: 'jwk' }),
    };
    this.verifiers.set(kid, verifier);
    return verifier;
  }

  /**
   * The JWKS of the organization with this slug: its active key only (a rotated key leaves at once).
   * Creates the key on first need.
   * @returns `{ keys }`, or `undefined` for an unknown organization
   * @see RFC 7517
   */
  async jwks(slug: string): Promise<{ keys: PublicJwk[] } | undefined> {
    const rows: Array<{ publicJwk: PublicJwk }> = await this.db.knex('keys.signing_keys').where({ orgSlug: slug }).whereNull('retiredAt').select('publicJwk');
    if (rows.length > 0) return { keys: rows.map((r) => r.publicJwk) };
    const org = await this.organizations.findBySlug(slug);
    if (!org) return undefined;
    const { kid } = await this.ensureActive(org.id, org.slug);
    return { keys: [(await this.row(kid))!.publicJwk] };
  }

  /**
   * Replaces the organization's active key with a new one. Tokens signed by the old key stop
   * verifying at once (the old key leaves the JWKS and the per-request check refuses it).
   * @returns the new and the retired `kid`
   * @see docs/api/orgs.md: rotation invalidates what it signed
   */
  async rotate(org: { id: string; slug: string }): Promise<{ kid: string; retiredKid: string | null }> {
    const result = await this.db.transaction(async (trx) => {
      const retired: Array<{ kid: string }> = await trx('keys.signing_keys').where({ orgId: org.id }).whereNull('retiredAt')
        .update({ retiredAt: this.clock.now() }).returning('kid');
      const kid = await this.insertKey(org, trx);
      const retiredKid = retired[0]?.kid ?? null;
      await this.audit.append(trx, { orgId: org.id, eventType: 'org.signing_key.rotated', businessData: { kid, retiredKid } });
      if (retiredKid) await this.keyStatus.announce(trx, { type: 'retired', kid: retiredKid, orgId: org.id });
      return { kid, retiredKid };
    });
    if (result.retiredKid) this.keyStatus.apply({ type: 'retired', kid: result.retiredKid, orgId: org.id });
    else this.active.delete(org.id);
    return result;
  }

  private async insertKey(org: { id: string; slug: string }, trx: Knex.Transaction): Promise<string> {
    const { publicKey, privateKey } = await generateRsa('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    const { n, e } = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
    const kid = await calculateJwkThumbprint({ kty: 'RSA', n, e }, 'sha256');
    const publicJwk: PublicJwk = { kty: 'RSA', n, e, kid, use: 'sig', alg: JWS_ALG };
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await trx('keys.signing_keys').insert({
      kid, orgId: org.id, orgSlug: org.slug, alg: JWS_ALG, publicJwk: JSON.stringify(publicJwk),
      privateKeyEnc: this.crypto.envelope.encrypt(pem, aad(org.id, kid)), createdAt: this.clock.now(),
    });
    return kid;
  }

  private async row(kid: string): Promise<SigningKeyRow | undefined> {
    return this.db.knex('keys.signing_keys').where({ kid }).first('kid', 'orgId', 'orgSlug', 'publicJwk', 'privateKeyEnc', 'retiredAt');
  }
}

/** Binds the encrypted private key to its organization and key id (a copied value does not decrypt). */
function aad(orgId: string, kid: string): string {
  return `keys.signing_key:${orgId}:${kid}`;
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; nativeError?: { code?: string } };
  return (e.nativeError?.code ?? e.code) === '23505';
}
