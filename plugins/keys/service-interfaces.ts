/**
 * The keys plugin's service interfaces: what other plugins may call through its refs (`api.ts`).
 * The classes that implement them stay inside the plugin.
 */
import type { KeyRecord, NewApiKey } from './api-keys.service.ts';
import type { ApiKeyDto, ApiKeyPrincipal, MachinePrincipal } from './api.ts';
import type { MachineTokenRequest, MachineTokenResponse } from './machine-tokens.service.ts';
import type { ActiveKey, PublicJwk, Signer, Verifier } from './signing-keys.service.ts';
import type { Knex } from 'knex';

/**
 * `keys.signingKeys`: each organization's RS256 signing key (RSA-2048) — created with the
 * organization (or on first need for organizations older than this plugin), private key
 * envelope-encrypted, published as the issuer's JWKS, rotated on demand (the old key leaves the JWKS
 * and stops verifying at once).
 * @see docs/api/keys.md, docs/api/orgs.md (signing-key/rotate)
 */
export interface SigningKeysService {
  /** `{base_url}/api/public/orgs/{slug}`: the organization as token issuer. */
  issuer(slug: string): string;
  /** The `aud` of machine tokens: the organization's `/api/org/{slug}` API. */
  audience(slug: string): string;
  /**
   * Creates the organization's first key in the creation transaction (`orgs.onCreate`).
   * @returns the new `kid`
   */
  createFor(org: { id: string; slug: string }, trx: Knex.Transaction): Promise<string>;
  /**
   * The organization's active key id, creating the key now when the organization has none (it was
   * created before this plugin was enabled). Concurrent first uses agree through the unique index.
   * @throws Error when the organization does not exist
   */
  ensureActive(orgId: string, slug?: string): Promise<ActiveKey>;
  /**
   * The organization's active key id and slug: from memory while the key-status view is in sync,
   * else from the database (creating the key on first need).
   * @throws Error when the organization does not exist
   */
  activeFor(orgId: string): Promise<ActiveKey>;
  /**
   * Remembers an organization's active key read from the database at key-status `version`; ignored
   * when a change happened since (the read may be stale).
   */
  prime(orgId: string, active: ActiveKey, version: number): void;
  /**
   * The parsed signing material of `kid` (decrypted and parsed once per process).
   * @throws Error when the key does not exist
   */
  signer(kid: string): Promise<Signer>;
  /**
   * The parsed public key of `kid`, active or retired (callers check status per request), or
   * `undefined` for an unknown `kid`.
   */
  verifier(kid: string): Promise<Verifier | undefined>;
  /**
   * The JWKS of the organization with this slug: its active key only (a rotated key leaves at once).
   * Creates the key on first need.
   * @returns `{ keys }`, or `undefined` for an unknown organization
   * @see RFC 7517
   */
  jwks(slug: string): Promise<{ keys: PublicJwk[] } | undefined>;
  /**
   * Replaces the organization's active key with a new one. Tokens signed by the old key stop
   * verifying at once (the old key leaves the JWKS and the per-request check refuses it).
   * @returns the new and the retired `kid`
   * @see docs/api/orgs.md: rotation invalidates what it signed
   */
  rotate(org: { id: string; slug: string }): Promise<{ kid: string; retiredKid: string | null }>;
}

/**
 * `keys.apiKeys`: organization API keys — `ah_live_` + 256 random bits, shown once, SHA-256 at rest,
 * listed without their value, rotated (old value dead at once) or revoked (a revocation marker cuts
 * off the machine tokens the key issued). Keys found by hash are remembered while the key-status
 * view is in sync; a rotation or revocation (here, or in another process through the same view)
 * forgets them.
 * @see docs/api/keys.md
 */
export interface ApiKeysService {
  /**
   * Creates a key. The caller has checked who may create it (scope, owner and seal for ceilings
   * above 300 s) and that the creator holds `scopes`.
   * @returns the key and its value (shown this once)
   * @throws 400 `VALIDATION_FAILED` (bad scope), `APP_GROUP_NOT_FOUND`, `SERVICE_ACCOUNT_NOT_FOUND`
   */
  create(orgId: string, createdBy: string | null, input: NewApiKey): Promise<{ key: ApiKeyDto; value: string }>;
  /** The organization's keys, newest first, revoked ones included (with `revokedAt`); never values. */
  list(orgId: string): Promise<ApiKeyDto[]>;
  /** One key of the organization, or `undefined` (other organizations' ids look absent). */
  get(orgId: string, keyId: string): Promise<ApiKeyDto | undefined>;
  /**
   * Gives a live key a new value; the old value stops working at once. Machine tokens already issued
   * keep working until they expire (revoke the key to cut them off).
   * @throws 404 `NOT_FOUND` for an unknown, foreign or revoked key
   */
  rotate(orgId: string, keyId: string): Promise<{ key: ApiKeyDto; value: string }>;
  /**
   * Revokes a key: its value stops working and a revocation marker, kept for the key's ceiling plus
   * one hour, cuts off every machine token it issued on their next request. Revoking a revoked key
   * changes nothing.
   * @throws 404 `NOT_FOUND` for an unknown or foreign key
   * @see docs/api/keys.md, 5
   */
  revoke(orgId: string, keyId: string): Promise<void>;
  /**
   * Deletes revocation markers whose time is up (every token of the key has expired by then): the
   * schedule `keys.purge-revocation-markers`, every 10 minutes. @returns how many were deleted
   */
  purgeExpiredMarkers(): Promise<number>;
  /**
   * The key with this value: remembered, or with one indexed query by hash (which also primes the
   * organization's active signing key). The caller rejects revoked keys. Unknown, malformed and
   * revoked values all take the query path (never remembered), so they cost the same.
   */
  lookup(value: string): Promise<KeyRecord | undefined>;
  /**
   * The API-key principal for a presented value, or `null` for an unknown, malformed or revoked key
   * or one whose service account is no longer active. The same query runs whatever the value.
   * @see docs/api/accounts.md
   */
  authenticate(value: string): Promise<ApiKeyPrincipal | null>;
  /**
   * true when the service account exists in the organization and is active; false when it is not,
   * or when no plugin answers for service accounts (fail closed).
   * @see docs/api/keys.md
   */
  serviceAccountActive(orgId: string, serviceAccountId: string): Promise<boolean>;
}

/**
 * `keys.machineTokens`: exchanges an organization API key for a short-lived RS256 machine token and
 * authenticates such tokens on `/api/org/{slug}/*`, re-checking key revocation, signing-key rotation
 * and the service account on every request.
 * @see docs/api/keys.md
 */
export interface MachineTokensService {
  /**
   * Issues a machine token: lifetime per the spec's table, `scope` narrowed from the key's scopes.
   * @throws 401 `UNAUTHORIZED` (unknown, revoked or foreign key; inactive service account),
   *   403 `PERMISSION_DENIED` with `required` (a scope the key does not hold)
   * @see docs/api/keys.md, 3, 6
   */
  issue(input: MachineTokenRequest): Promise<MachineTokenResponse>;
  /**
   * The machine principal for a bearer token on `/api/org/{slug}/…`, or `null` when the token is not
   * a valid, live machine token of that organization.
   *
   * Once per token string (then remembered until it expires): RS256 only, with a known `kid`, and
   * `typ: at+jwt`; the signature; `iss`, `aud` and `org` naming the organization the `kid` belongs to
   * (a `kid` of another organization is refused). On every request: `org` = `{slug}`, `exp` and
   * `iat` against the clock, the signing key still active and the API key free of a revocation
   * marker ({@link KeyStatusService}), and the service account still active.
   * @see docs/api/keys.md, 5, 6
   */
  authenticate(token: string, slug: string): Promise<MachinePrincipal | null>;
}
