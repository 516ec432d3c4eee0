import { randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type AuditService, type Clock, type CryptoService, type Database } from '../../core/index.ts';
import { formatScope, isUuid, parseScope } from '../../core/index.ts';
import { keysExtensions, keysRefs, type ApiKeyDto, type ApiKeyPrincipal, type AppGroupDirectory, type ServiceAccountDirectory } from './api.ts';
import { keysInternalRefs } from './internal-refs.ts';
import { keysErrors } from './errors.ts';
import { revocationMarkerSeconds } from './token-lifetime.ts';
import type { KeyChange, KeyStatusService } from './key-status.service.ts';
import type { SigningKeysService } from './signing-keys.service.ts';
import { LRUCache } from 'lru-cache';
import type { ApiKeysService as ApiKeysServiceApi } from './service-interfaces.ts';

/** Prefix of every organization API key. @see docs/api/keys.md */
export const API_KEY_PREFIX = 'ah_live_';
/** Random bytes after the prefix: 256 bits. */
const API_KEY_RANDOM_BYTES = 32;

/** What a new key holds. @see docs/api/keys.md */
export interface NewApiKey {
  name: string;
  appGroupId?: string;
  scopes?: string[];
  maxTokenLifetimeSeconds?: number;
  serviceAccountId?: string;
}

/** A key as the token endpoint and the `apiKey` scheme need it. */
export interface KeyRecord {
  id: string;
  orgId: string;
  scopes: string[];
  maxTokenLifetimeSeconds: number | null;
  appGroupId: string | null;
  serviceAccountId: string | null;
  revokedAt: Date | null;
  keyHash: string;
}

/** Keys remembered by hash per process (while the key-status view is in sync). */
const KEY_CACHE_SIZE = 10_000;

interface ApiKeyRow {
  id: string;
  orgId: string;
  name: string;
  hint: string;
  appGroupId: string | null;
  scopes: string[];
  maxTokenLifetimeSeconds: number | null;
  serviceAccountId: string | null;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

// One indexed look-up by hash; the join brings the organization's active signing key (tokens need it).
const ISSUANCE_SQL = `select k.id, k.org_id as "orgId", k.scopes, k.max_token_lifetime_seconds as "maxTokenLifetimeSeconds",
  k.app_group_id as "appGroupId", k.service_account_id as "serviceAccountId", k.revoked_at as "revokedAt", k.key_hash as "keyHash",
  s.kid, s.org_slug as "orgSlug"
  from keys.api_keys k left join keys.signing_keys s on s.org_id = k.org_id and s.retired_at is null
  where k.key_hash = ?`;

/**
 * `keys.apiKeys`: organization API keys — `ah_live_` + 256 random bits, shown once, SHA-256 at rest,
 * listed without their value, rotated (old value dead at once) or revoked (a revocation marker cuts
 * off the machine tokens the key issued). Keys found by hash are remembered while the key-status
 * view is in sync; a rotation or revocation (here, or in another process through the same view)
 * forgets them.
 * @see docs/api/keys.md
 */
@injectable()
export class ApiKeysService implements ApiKeysServiceApi {
  private readonly byHash = new LRUCache<string, KeyRecord>({ max: KEY_CACHE_SIZE });

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(keysInternalRefs.keyStatus.id) private readonly keyStatus: KeyStatusService,
    @inject(keysRefs.signingKeys.id) private readonly signingKeys: SigningKeysService,
    @inject(keysExtensions.serviceAccounts.id) private readonly serviceAccounts: readonly ServiceAccountDirectory[],
    @inject(keysExtensions.appGroups.id) private readonly appGroups: readonly AppGroupDirectory[],
  ) {
    keyStatus.onChange((change) => {
      if (change.type === 'resync') this.byHash.clear();
      if (change.type !== 'revoked' && change.type !== 'rotated') return;
      // A scan: revocations and rotations are rare.
      const gone = [...this.byHash.entries()].filter(([, key]) => key.id === change.keyId);
      for (const [hash] of gone) this.byHash.delete(hash);
    });
  }

  /**
   * Creates a key. The caller has checked who may create it (scope, owner and seal for ceilings
   * above 300 s) and that the creator holds `scopes`.
   * @returns the key and its value (shown this once)
   * @throws 400 `VALIDATION_FAILED` (bad scope), `APP_GROUP_NOT_FOUND`, `SERVICE_ACCOUNT_NOT_FOUND`
   */
  async create(orgId: string, createdBy: string | null, input: NewApiKey): Promise<{ key: ApiKeyDto; value: string }> {
    const scopes = normalizeScopes(input.scopes ?? []);
    if (input.appGroupId !== undefined && !(await this.appGroups.at(-1)?.(orgId, input.appGroupId))) throw keysErrors.appGroupNotFound(input.appGroupId);
    if (input.serviceAccountId !== undefined && !(await this.serviceAccountActive(orgId, input.serviceAccountId))) {
      throw keysErrors.serviceAccountNotFound(input.serviceAccountId);
    }
    const value = newValue(this.crypto);
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      const [inserted]: ApiKeyRow[] = await trx('keys.api_keys').insert({
        id: randomUUID(), orgId, name: input.name, keyHash: this.crypto.sha256Hex(value), hint: value.slice(-4),
        appGroupId: input.appGroupId ?? null, scopes: JSON.stringify(scopes), maxTokenLifetimeSeconds: input.maxTokenLifetimeSeconds ?? null,
        serviceAccountId: input.serviceAccountId ?? null, createdBy, createdAt: now,
      }).returning(COLUMNS);
      await this.audit.append(trx, {
        orgId, eventType: 'org.api_key.created',
        businessData: { keyId: inserted.id, name: inserted.name, appGroupId: inserted.appGroupId, scopes, maxTokenLifetimeSeconds: inserted.maxTokenLifetimeSeconds, serviceAccountId: inserted.serviceAccountId },
      });
      return inserted;
    });
    return { key: toDto(row), value };
  }

  /** The organization's keys, newest first, revoked ones included (with `revokedAt`); never values. */
  async list(orgId: string): Promise<ApiKeyDto[]> {
    const rows: ApiKeyRow[] = await this.db.knex('keys.api_keys').where({ orgId }).orderBy('createdAt', 'desc').orderBy('id').select(COLUMNS);
    return rows.map(toDto);
  }

  /** One key of the organization, or `undefined` (other organizations' ids look absent). */
  async get(orgId: string, keyId: string): Promise<ApiKeyDto | undefined> {
    if (!isUuid(keyId)) return undefined;
    const row: ApiKeyRow | undefined = await this.db.knex('keys.api_keys').where({ orgId, id: keyId }).first(COLUMNS);
    return row && toDto(row);
  }

  /**
   * Gives a live key a new value; the old value stops working at once. Machine tokens already issued
   * keep working until they expire (revoke the key to cut them off).
   * @throws 404 `NOT_FOUND` for an unknown, foreign or revoked key
   */
  async rotate(orgId: string, keyId: string): Promise<{ key: ApiKeyDto; value: string }> {
    if (!isUuid(keyId)) throw keysErrors.apiKeyNotFound();
    const value = newValue(this.crypto);
    const row = await this.db.transaction(async (trx) => {
      const [updated]: ApiKeyRow[] = await trx('keys.api_keys').where({ orgId, id: keyId }).whereNull('revokedAt')
        .update({ keyHash: this.crypto.sha256Hex(value), hint: value.slice(-4), rotatedAt: this.clock.now() }).returning(COLUMNS);
      if (!updated) throw keysErrors.apiKeyNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.api_key.rotated', businessData: { keyId, name: updated.name } });
      await this.keyStatus.announce(trx, { type: 'rotated', keyId });
      return updated;
    });
    this.keyStatus.apply({ type: 'rotated', keyId });
    return { key: toDto(row), value };
  }

  /**
   * Revokes a key: its value stops working and a revocation marker, kept for the key's ceiling plus
   * one hour, cuts off every machine token it issued on their next request. Revoking a revoked key
   * changes nothing.
   * @throws 404 `NOT_FOUND` for an unknown or foreign key
   * @see docs/api/keys.md, 5
   */
  async revoke(orgId: string, keyId: string): Promise<void> {
    if (!isUuid(keyId)) throw keysErrors.apiKeyNotFound();
    const now = this.clock.now();
    const change = await this.db.transaction(async (trx): Promise<KeyChange | undefined> => {
      const row: ApiKeyRow | undefined = await trx('keys.api_keys').where({ orgId, id: keyId }).forUpdate().first(COLUMNS);
      if (!row) throw keysErrors.apiKeyNotFound();
      if (row.revokedAt) return undefined;
      await trx('keys.api_keys').where({ id: keyId }).update({ revokedAt: now });
      const expiresAt = new Date(now.getTime() + revocationMarkerSeconds(row.maxTokenLifetimeSeconds) * 1000);
      await trx('keys.api_key_revocations').insert({ keyId, orgId, revokedAt: now, expiresAt });
      await this.audit.append(trx, { orgId, eventType: 'org.api_key.revoked', businessData: { keyId, name: row.name } });
      const revoked: KeyChange = { type: 'revoked', keyId, expiresAt: expiresAt.getTime() };
      await this.keyStatus.announce(trx, revoked);
      return revoked;
    });
    if (change) this.keyStatus.apply(change);
  }

  /**
   * Deletes revocation markers whose time is up (every token of the key has expired by then).
   * @returns how many were deleted
   */
  async purgeExpiredMarkers(): Promise<number> {
    return this.db.knex('keys.api_key_revocations').where('expiresAt', '<=', this.clock.now()).delete();
  }

  /**
   * The key with this value: remembered, or with one indexed query by hash (which also primes the
   * organization's active signing key). The caller rejects revoked keys. Unknown, malformed and
   * revoked values all take the query path (never remembered), so they cost the same.
   */
  async lookup(value: string): Promise<KeyRecord | undefined> {
    const hash = this.crypto.sha256Hex(value);
    if (this.keyStatus.synced) {
      const hit = this.byHash.get(hash);
      if (hit) return hit;
    }
    const version = this.keyStatus.version;
    const { rows } = (await this.db.knex.raw(ISSUANCE_SQL, [hash])) as { rows: Array<KeyRecord & { kid: string | null; orgSlug: string | null }> };
    const row = rows[0];
    // The index already matched the hash; the constant-time compare guards against any collation surprise.
    if (!row || !this.crypto.constantTimeEqual(row.keyHash, hash)) return undefined;
    const { kid, orgSlug, ...key } = row;
    if (kid && orgSlug) this.signingKeys.prime(key.orgId, { kid, slug: orgSlug }, version);
    if (!key.revokedAt && this.keyStatus.synced && this.keyStatus.version === version) this.byHash.set(hash, key);
    return key;
  }

  /**
   * The key with this value when this process remembers it (key-status view in sync), without a
   * query or a promise; `undefined` otherwise: then ask {@link lookup}, which also answers unknown,
   * malformed and revoked values (never remembered). The caller rejects revoked keys all the same.
   */
  remembered(value: string): KeyRecord | undefined {
    return this.keyStatus.synced ? this.byHash.get(this.crypto.sha256Hex(value)) : undefined;
  }

  /**
   * The API-key principal for a presented value, or `null` for an unknown, malformed or revoked key
   * or one whose service account is no longer active. The same query runs whatever the value.
   * @see docs/api/accounts.md
   */
  async authenticate(value: string): Promise<ApiKeyPrincipal | null> {
    const key = await this.lookup(value);
    if (!key || key.revokedAt || !value.startsWith(API_KEY_PREFIX)) return null;
    if (key.serviceAccountId && !(await this.serviceAccountActive(key.orgId, key.serviceAccountId))) return null;
    return {
      type: 'apiKey', id: key.id, orgId: key.orgId, scopes: key.scopes,
      ...(key.appGroupId ? { appGroupId: key.appGroupId } : {}),
      ...(key.serviceAccountId ? { serviceAccountId: key.serviceAccountId } : {}),
    };
  }

  /**
   * true when the service account exists in the organization and is active; false when it is not,
   * or when no plugin answers for service accounts (fail closed).
   * @see docs/api/keys.md
   */
  async serviceAccountActive(orgId: string, serviceAccountId: string): Promise<boolean> {
    const directory = this.serviceAccounts.at(-1);
    return directory ? (await directory(orgId, serviceAccountId)) === 'active' : false;
  }
}

const COLUMNS = ['id', 'orgId', 'name', 'hint', 'appGroupId', 'scopes', 'maxTokenLifetimeSeconds', 'serviceAccountId', 'createdAt', 'rotatedAt', 'revokedAt'];

function newValue(crypto: CryptoService): string {
  return API_KEY_PREFIX + crypto.randomToken(API_KEY_RANDOM_BYTES);
}

/** Canonical, de-duplicated scope texts. @throws 400 for a malformed expression */
function normalizeScopes(scopes: string[]): string[] {
  const out = new Set<string>();
  for (const text of scopes) {
    try {
      out.add(formatScope(parseScope(text)));
    } catch {
      throw keysErrors.invalidScope(text);
    }
  }
  return [...out];
}

function toDto(row: ApiKeyRow): ApiKeyDto {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id, name: row.name, hint: row.hint, appGroupId: row.appGroupId, scopes: row.scopes,
    maxTokenLifetimeSeconds: row.maxTokenLifetimeSeconds, serviceAccountId: row.serviceAccountId,
    createdAt: new Date(row.createdAt).toISOString(), rotatedAt: iso(row.rotatedAt), revokedAt: iso(row.revokedAt),
  };
}

