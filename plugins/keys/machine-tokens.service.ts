import { randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type Clock } from '../../core/index.ts';
import { isUuid, narrowScopes } from '../../core/index.ts';
import { keysRefs, type MachinePrincipal } from './api.ts';
import { keysInternalRefs } from './internal-refs.ts';
import { API_KEY_PREFIX, type ApiKeysService } from './api-keys.service.ts';
import { ACCESS_TOKEN_TYP, type SigningKeysService, type Verifier } from './signing-keys.service.ts';
import { LRUCache } from 'lru-cache';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { JWS_ALG } from './signing-keys.service.ts';
import { issuedLifetime } from './token-lifetime.ts';
import { keysErrors } from './errors.ts';
import type { KeyStatusService } from './key-status.service.ts';
import type { MachineTokensService as MachineTokensServiceApi } from './service-interfaces.ts';

/** `POST /api/m2m/token` answer. @see docs/api/keys.md */
export interface MachineTokenResponse {
  accessToken: string;
  tokenType: 'Bearer';
  /** The real issued lifetime in seconds. */
  expiresIn: number;
  /** The organization's slug. */
  org: string;
}

/** Request of `POST /api/m2m/token`. */
export interface MachineTokenRequest {
  orgSlug: string;
  apiKey: string;
  /** Space-separated scopes (or a list); narrows what the key holds. Omitted: all of it. */
  scope?: string | string[];
  lifetimeSeconds?: number;
}

/** Claims of a machine token (RFC 9068 JWT access token plus `org`). */
export interface MachineTokenClaims {
  iss: string;
  /** The service account when the key is bound to one, else the key id. */
  sub: string;
  aud: string;
  /** Organization slug. */
  org: string;
  scope: string;
  /** The issuing API key's id. */
  client_id: string;
  /** App group of an app-group-scoped key. */
  app_group?: string;
  jti: string;
  iat: number;
  exp: number;
}

/** Verified tokens remembered per process (a token is typically reused until it expires). */
const VERIFIED_CACHE_SIZE = 10_000;

/** Clock skew tolerated on `iat` (seconds). */
const IAT_LEEWAY_SECONDS = 60;

/**
 * `keys.machineTokens`: exchanges an organization API key for a short-lived RS256 machine token and
 * authenticates such tokens on `/api/org/{slug}/*`, re-checking key revocation, signing-key rotation
 * and the service account on every request.
 * @see docs/api/keys.md
 */
@injectable()
export class MachineTokensService implements MachineTokensServiceApi {
  private readonly verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_CACHE_SIZE });

  constructor(
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(keysRefs.apiKeys.id) private readonly apiKeys: ApiKeysService,
    @inject(keysRefs.signingKeys.id) private readonly signingKeys: SigningKeysService,
    @inject(keysInternalRefs.keyStatus.id) private readonly keyStatus: KeyStatusService,
  ) {}

  /**
   * Issues a machine token: lifetime per the spec's table, `scope` narrowed from the key's scopes.
   * @throws 401 `UNAUTHORIZED` (unknown, revoked or foreign key; inactive service account),
   *   403 `PERMISSION_DENIED` with `required` (a scope the key does not hold)
   * @see docs/api/keys.md, 3, 6
   */
  async issue(input: MachineTokenRequest): Promise<MachineTokenResponse> {
    // What this process remembers is read without a promise; only a miss waits (for the database).
    const key = this.apiKeys.remembered(input.apiKey) ?? (await this.apiKeys.lookup(input.apiKey));
    if (!key || key.revokedAt || !input.apiKey.startsWith(API_KEY_PREFIX)) throw keysErrors.invalidApiKey();
    const { kid, slug } = this.signingKeys.rememberedActive(key.orgId) ?? (await this.signingKeys.activeFor(key.orgId));
    // Slugs are case-insensitive, as in paths (`/api/org/ACME/…` is acme).
    if (slug.toLowerCase() !== input.orgSlug.toLowerCase()) throw keysErrors.invalidApiKey();
    if (key.serviceAccountId && !(await this.apiKeys.serviceAccountActive(key.orgId, key.serviceAccountId))) throw keysErrors.serviceAccountInactive();

    let scopes = key.scopes;
    if (input.scope !== undefined) {
      const requested = Array.isArray(input.scope) ? input.scope : input.scope.split(' ').filter(Boolean);
      const { granted, refused } = narrowScopes(key.scopes, requested);
      if (refused.length > 0) throw keysErrors.scopeNotHeld(refused);
      scopes = granted;
    }
    const signer = await this.signingKeys.signer(kid);
    const expiresIn = issuedLifetime(input.lifetimeSeconds, key.maxTokenLifetimeSeconds);
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const claims: MachineTokenClaims & Record<string, unknown> = {
      iss: signer.issuer, sub: key.serviceAccountId ?? key.id, aud: this.signingKeys.audience(slug), org: slug,
      scope: scopes.join(' '), client_id: key.id, ...(key.appGroupId ? { app_group: key.appGroupId } : {}),
      jti: randomUUID(), iat, exp: iat + expiresIn,
    };
    const accessToken = await signer.sign(claims);
    return { accessToken, tokenType: 'Bearer', expiresIn, org: slug };
  }

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
  async authenticate(token: string, slug: string): Promise<MachinePrincipal | null> {
    let t = this.verified.get(token);
    if (!t) {
      t = await this.verify(token);
      if (!t) return null;
      this.verified.set(token, t);
    }
    if (t.slug !== slug) return null;
    const now = this.clock.now().getTime() / 1000;
    if (t.exp <= now || t.iat > now + IAT_LEEWAY_SECONDS) return null;
    if (t.verifier.retired || !(await this.keyStatus.isLive(t.verifier.kid, t.keyId))) return null;
    if (t.serviceAccountId && !(await this.apiKeys.serviceAccountActive(t.verifier.orgId, t.serviceAccountId))) return null;
    return {
      type: 'machine', id: t.keyId, orgId: t.verifier.orgId, scopes: t.scopes,
      ...(t.appGroupId ? { appGroupId: t.appGroupId } : {}),
      ...(t.serviceAccountId ? { serviceAccountId: t.serviceAccountId } : {}),
    };
  }

  /** Checks what never changes about a token: its form, signature and issuer. */
  private async verify(token: string): Promise<VerifiedToken | undefined> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    if (header.alg !== JWS_ALG || header.typ !== ACCESS_TOKEN_TYP || typeof header.kid !== 'string' || header.crit !== undefined) return undefined;
    const verifier = await this.signingKeys.verifier(header.kid);
    if (!verifier) return undefined;
    let c: Record<string, unknown>;
    try {
      // jose checks the signature with the kid's key, RS256 only (`none`, HS256 and others refused).
      const { payload } = await compactVerify(token, verifier.publicKey, { algorithms: [JWS_ALG] });
      c = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (typeof c.org !== 'string' || typeof c.client_id !== 'string' || !isUuid(c.client_id) || typeof c.sub !== 'string' || typeof c.scope !== 'string') return undefined;
    if (typeof c.exp !== 'number' || typeof c.iat !== 'number' || (c.app_group !== undefined && typeof c.app_group !== 'string')) return undefined;
    // A kid of another organization is refused even with a valid signature.
    if (verifier.slug !== c.org) return undefined;
    if (c.iss !== this.signingKeys.issuer(c.org) || c.aud !== this.signingKeys.audience(c.org)) return undefined;
    return {
      verifier, slug: c.org, keyId: c.client_id, exp: c.exp, iat: c.iat,
      scopes: Object.freeze(c.scope ? c.scope.split(' ') : []) as string[],
      appGroupId: c.app_group as string | undefined,
      serviceAccountId: c.sub !== c.client_id ? c.sub : undefined,
    };
  }
}

/** A token whose signature and issuer were checked; what is left is checked per request. */
interface VerifiedToken {
  verifier: Verifier;
  slug: string;
  keyId: string;
  exp: number;
  iat: number;
  scopes: string[];
  appGroupId?: string;
  serviceAccountId?: string;
}
