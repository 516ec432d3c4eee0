import { randomUUID } from 'node:crypto';
import { appsRefs, type AppGroupDto, type AppGroupsService } from '../apps/api.ts';
import {
  coreRefs, discoverProvider, inject, injectable, SigninRefused, type AerieConfig, type AuditService, type Clock, type CryptoService, type Database, type EgressFetch,
  type Egress, type OidcSigninConfig,
} from '../../core/index.ts';
import { oidcErrors } from './errors.ts';

const TABLE = 'oidc.social_connections';
const SECRET_AAD = 'oidc.social_client_secret';

/** Providers a connection may name; `github` and `apple` are listed by app groups but sign in without OpenID discovery. */
export const SOCIAL_PROVIDERS = ['google', 'microsoft', 'oidc', 'github', 'apple'] as const;
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

/** The issuer used when a connection names none. */
const DEFAULT_ISSUERS: Partial<Record<SocialProvider, string>> = { google: 'https://accounts.google.com' };

/** The end-user `source` of a person who signed up through the provider. */
export const SOCIAL_SOURCES: Record<SocialProvider, string> = { google: 'Google', microsoft: 'Microsoft', oidc: 'OpenID', github: 'GitHub', apple: 'Apple' };

/** `PUT …/social-connections/{provider}` body. */
export interface SocialConnectionInput {
  clientId: string;
  /** Omitted or empty: keep the stored secret (a public client when there is none). */
  clientSecret?: string;
  /** Required for `microsoft` (the tenant's issuer) and `oidc`; `google` defaults to https://accounts.google.com. */
  issuer?: string;
}

/** A connection as the API answers it (never the secret). @see docs/api/signin.md "Social sign-in" */
export interface SocialConnectionDto {
  provider: SocialProvider;
  issuer: string;
  clientId: string;
  clientSecretSet: boolean;
  redirectUri: string;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string; orgId: string; appGroupId: string; provider: SocialProvider; issuer: string; authorizationEndpoint: string; tokenEndpoint: string;
  jwksUri: string; clientId: string; clientSecretCiphertext: string | null; createdAt: Date; updatedAt: Date;
}

/**
 * An app group's connections to upstream OpenID providers for the hosted login's social sign-in:
 * one per provider, endpoints read from the issuer's discovery document through `core.egress` when
 * saved, the client secret envelope-encrypted and never answered. Audited as
 * `org.app_group.social_connection_set` / `_removed`.
 * @see docs/api/signin.md "Social sign-in"
 */
@injectable()
export class SocialConnections {
  /** `core.egress` as a fetch for the providers (10 s, 256 KiB answers); social flows use it too. */
  readonly fetch: EgressFetch;
  /** `{login_url}`: the callback every connection registers at its provider. */
  private readonly loginUrl: string;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.egress.id) egress: Egress,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(appsRefs.appGroups.id) private readonly appGroups: AppGroupsService,
    @inject(coreRefs.config.id) config: AerieConfig,
  ) {
    this.fetch = socialFetch(egress);
    this.loginUrl = config.loginUrl;
  }

  /** The redirect URI to register at the provider, for applications of any key: the key is a path segment. */
  redirectUri(provider: string): string {
    return `${this.loginUrl}/login/{applicationKey}/social/${provider}/callback`;
  }

  /** The callback URL of one application's social sign-in (`redirectUri` with the key filled in). */
  callbackUrl(applicationKey: string, provider: string): string {
    return `${this.loginUrl}/login/${encodeURIComponent(applicationKey)}/social/${provider}/callback`;
  }

  /** The group's connections. @throws 404 for a group of another organization */
  async list(orgId: string, groupId: string): Promise<SocialConnectionDto[]> {
    await this.group(orgId, groupId);
    const rows = (await this.db.knex(TABLE).where({ orgId, appGroupId: groupId }).orderBy('provider')) as Row[];
    return rows.map((r) => this.dto(r));
  }

  /**
   * Creates or replaces the group's connection to `provider`.
   * @throws 404 (group), 400 `SOCIAL_PROVIDER_UNSUPPORTED`, 400 `VALIDATION_FAILED` (`issuer` missing), 400 `SOCIAL_DISCOVERY_FAILED`
   */
  async put(orgId: string, groupId: string, provider: SocialProvider, input: SocialConnectionInput): Promise<SocialConnectionDto> {
    await this.group(orgId, groupId);
    if (provider === 'github' || provider === 'apple') throw oidcErrors.socialUnsupported(provider);
    const issuer = input.issuer ?? DEFAULT_ISSUERS[provider];
    if (!issuer) throw oidcErrors.socialIssuerRequired();
    let endpoints: Omit<OidcSigninConfig, 'clientId' | 'clientSecret'>;
    try {
      endpoints = await discoverProvider(issuer, this.fetch);
    } catch (err) {
      if (err instanceof SigninRefused) throw oidcErrors.socialDiscovery();
      throw err;
    }
    return this.db.transaction(async (trx) => {
      const prior = (await trx(TABLE).where({ orgId, appGroupId: groupId, provider }).forUpdate().first()) as Row | undefined;
      const now = this.clock.now();
      const secret = input.clientSecret ? this.crypto.envelope.encrypt(input.clientSecret, SECRET_AAD) : (prior?.clientSecretCiphertext ?? null);
      const values = {
        issuer: endpoints.issuer, authorizationEndpoint: endpoints.authorizationEndpoint, tokenEndpoint: endpoints.tokenEndpoint,
        jwksUri: endpoints.jwksUri!, clientId: input.clientId, clientSecretCiphertext: secret, updatedAt: now,
      };
      const [row] = (prior
        ? await trx(TABLE).where({ id: prior.id }).update(values).returning('*')
        : await trx(TABLE).insert({ id: randomUUID(), orgId, appGroupId: groupId, provider, createdAt: now, ...values }).returning('*')) as Row[];
      await this.audit.append(trx, {
        orgId, eventType: 'org.app_group.social_connection_set',
        businessData: { appGroupId: groupId, provider, issuer: row.issuer, clientId: row.clientId, clientSecretSet: row.clientSecretCiphertext !== null },
      });
      return this.dto(row);
    });
  }

  /** Removes the group's connection to `provider`. @throws 404 */
  async remove(orgId: string, groupId: string, provider: SocialProvider): Promise<void> {
    await this.group(orgId, groupId);
    await this.db.transaction(async (trx) => {
      const gone = await trx(TABLE).where({ orgId, appGroupId: groupId, provider }).delete().returning('id');
      if (gone.length === 0) throw oidcErrors.socialConnectionNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.social_connection_removed', businessData: { appGroupId: groupId, provider } });
    });
  }

  /**
   * The providers the hosted login offers for the group: every connection, in the order of the
   * group's `branding.socialProviders`, then the rest by name.
   */
  async offered(orgId: string, group: AppGroupDto): Promise<SocialProvider[]> {
    const rows = (await this.db.knex(TABLE).where({ orgId, appGroupId: group.id }).select('provider')) as Array<Pick<Row, 'provider'>>;
    const order = group.branding.socialProviders as string[];
    const rank = (p: string) => (order.includes(p) ? order.indexOf(p) : order.length);
    return rows.map((r) => r.provider).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  /** The connection as sign-in uses it (secret decrypted), or `undefined`. */
  async config(orgId: string, groupId: string, provider: string): Promise<OidcSigninConfig | undefined> {
    const row = (await this.db.knex(TABLE).where({ orgId, appGroupId: groupId, provider }).first()) as Row | undefined;
    if (!row) return undefined;
    return {
      issuer: row.issuer, authorizationEndpoint: row.authorizationEndpoint, tokenEndpoint: row.tokenEndpoint, jwksUri: row.jwksUri, clientId: row.clientId,
      clientSecret: row.clientSecretCiphertext ? this.crypto.envelope.decryptText(row.clientSecretCiphertext, SECRET_AAD) : null,
    };
  }

  private async group(orgId: string, groupId: string): Promise<AppGroupDto> {
    const group = await this.appGroups.get(orgId, groupId);
    if (!group) throw oidcErrors.applicationNotFound();
    return group;
  }

  private dto(r: Row): SocialConnectionDto {
    return {
      provider: r.provider, issuer: r.issuer, clientId: r.clientId, clientSecretSet: r.clientSecretCiphertext !== null, redirectUri: this.redirectUri(r.provider),
      createdAt: new Date(r.createdAt).toISOString(), updatedAt: new Date(r.updatedAt).toISOString(),
    };
  }
}

/** How Aerie calls social providers: through `core.egress`, answers within 10 s and 256 KiB. */
function socialFetch(egress: Egress): EgressFetch {
  return egress.fetch({ timeoutMs: 10_000, maxResponseBytes: 256 * 1024 });
}
