import type Provider from 'oidc-provider';
import { LRUCache } from 'lru-cache';
import { coreRefs, inject, injectable, type AerieConfig } from '../../core/index.ts';
import { orgsRefs, type OrganizationsService } from '../orgs/api.ts';
import { oidcInternalRefs, type OidcConfig } from './internal-refs.ts';
import { buildProvider, type ProviderDeps } from './provider-factory.ts';

/** Providers kept in memory when the configuration does not say (`oidc.providerCacheSize`). */
export const DEFAULT_PROVIDER_CACHE_SIZE = 500;
/**
 * How long an organization found by slug is reused before it is looked up again (milliseconds): a
 * renamed or deleted organization's old issuer answers at most this long after the change.
 */
export const ORG_LOOKUP_TTL_MS = 2000;

/** An organization's provider, with what it was built for. */
export interface OrgProvider {
  provider: Provider;
  org: { id: string; slug: string };
  /** `{base_url}/api/public/orgs/{slug}`'s path: where the provider is mounted. */
  mountPath: string;
  /** The provider as a Node.js request handler (`provider.callback()`, made once). */
  handle: ReturnType<Provider['callback']>;
}

interface Entry {
  kid: string;
  slug: string;
  built: Promise<OrgProvider>;
}

/**
 * One OpenID provider per organization, built on first use and kept in a bounded LRU cache (so
 * memory stays flat however many organizations sign users in: the least recently used provider is
 * dropped and rebuilt on its next request). An entry is rebuilt when the organization's active
 * signing key or slug changes, so a key rotation takes effect on the next request in every process.
 * Everything a provider stores lives in the database, so dropping one loses nothing.
 * @see docs/api/signin.md "One provider per organization"
 */
@injectable()
export class OrgProviders {
  private readonly cache: LRUCache<string, Entry>;
  private readonly orgsBySlug: LRUCache<string, { id: string; slug: string }>;

  /** The kernel's `http.trustProxy`: the client address then comes from the proxy's `X-Forwarded-For`. */
  private readonly trustProxy: boolean;

  constructor(
    @inject(oidcInternalRefs.providerContext.id) private readonly deps: ProviderDeps,
    @inject(orgsRefs.organizations.id) private readonly orgs: OrganizationsService,
    @inject(oidcInternalRefs.config.id) { oidc }: OidcConfig,
    @inject(coreRefs.config.id) config: AerieConfig,
  ) {
    const size = oidc.providerCacheSize ?? DEFAULT_PROVIDER_CACHE_SIZE;
    this.trustProxy = config.http.trustProxy;
    this.cache = new LRUCache<string, Entry>({ max: size });
    this.orgsBySlug = new LRUCache<string, { id: string; slug: string }>({ max: size, ttl: ORG_LOOKUP_TTL_MS });
  }

  /** The provider of the organization with this slug, or `undefined` for an unknown organization. */
  async forSlug(slug: string): Promise<OrgProvider | undefined> {
    let org = this.orgsBySlug.get(slug);
    if (!org) {
      const found = await this.orgs.findBySlug(slug);
      if (!found) return undefined;
      org = { id: found.id, slug: found.slug };
      this.orgsBySlug.set(slug, org);
    }
    const { kid } = await this.deps.signingKeys.activeFor(org.id);
    const cached = this.cache.get(org.id);
    if (cached && cached.kid === kid && cached.slug === org.slug) return cached.built;
    const issuer = new URL(this.deps.signingKeys.issuer(org.slug));
    const built = buildProvider(this.deps, { id: org.id, slug: org.slug }, kid).then((provider) => ({
      provider, org: { id: org.id, slug: org.slug }, mountPath: issuer.pathname, handle: asIssuer(issuer, provider.callback(), this.trustProxy),
    }));
    this.cache.set(org.id, { kid, slug: org.slug, built });
    built.catch(() => this.cache.delete(org.id));
    return built;
  }

  /** How many providers are in memory (for the bench and tests). */
  get size(): number {
    return this.cache.size;
  }
}

/**
 * The provider builds every URL it publishes (discovery, redirects to the hosted login, form
 * actions) from the request's host and scheme. Aerie's configured `base_url` is authoritative
 * instead, as for the keys plugin's documents: the request is presented to the provider as arriving
 * at the issuer's host and scheme (it trusts forwarded headers, set here and nowhere else). The
 * client's address is passed on only when Aerie itself trusts a proxy (`http.trustProxy`).
 */
function asIssuer(issuer: URL, handle: ReturnType<Provider['callback']>, trustProxy: boolean): ReturnType<Provider['callback']> {
  return (req, res) => {
    req.headers['x-forwarded-host'] = issuer.host;
    req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    if (!trustProxy) req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    return handle(req, res);
  };
}
