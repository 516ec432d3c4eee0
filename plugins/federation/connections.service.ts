import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import {
  coreRefs, EgressError, inject, injectable,
  type AuditService, type Clock, type CryptoService, type Database, type Egress,
} from '../../core/index.ts';
import { protocolOf, type ConnectionInput } from './connection-input.ts';
import { federationErrors } from './errors.ts';
import { discover } from './oidc-config.ts';
import { MAX_METADATA_BYTES, readMetadata, toPem, type SamlIdp } from './saml-metadata.ts';

/** Stored, shown configuration (no secret). */
interface StoredConfig {
  allowJit: boolean;
  oidc?: { discoveryUrl: string | null; issuer: string; authorizationEndpoint: string; tokenEndpoint: string; jwksUri: string | null; clientId: string };
  saml?: { metadataUrl: string | null; entityId: string; ssoUrl: string; certificates: string[] };
}

interface ConnectionRow {
  id: string;
  orgId: string;
  provider: string;
  config: StoredConfig;
  clientSecretCiphertext: string | null;
  isActive: boolean;
  createdAt: Date;
}

/** An active connection as sign-in uses it (secret decrypted; never answered). */
export type SigninConnection = { id: string; orgId: string; provider: string; allowJit: boolean } & (
  | { protocol: 'oidc'; oidc: NonNullable<StoredConfig['oidc']> & { clientSecret: string | null } }
  | { protocol: 'saml'; saml: NonNullable<StoredConfig['saml']> }
);

/** An IdP connection as the API shows it (snake_case, secrets redacted). @see docs/api/federation.md */
export type ConnectionDto = Record<string, unknown>;

const TABLE = 'federation.connections';

/**
 * `federation.connections`: an organization's IdP connection. Creating one deactivates the prior
 * active row of the same provider (history kept); another provider must be deactivated first.
 * Discovery documents and SAML metadata are fetched through `core.egress`; client secrets are
 * envelope-encrypted and never returned.
 * @see docs/api/federation.md
 */
@injectable()
export class ConnectionsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.egress.id) private readonly egress: Egress,
  ) {}

  /**
   * The active connection as sign-in needs it — protocol settings with the client secret decrypted
   * (never answered to a client) — or null with native login. @see docs/api/federation.md "Signing in"
   */
  async signinConfig(orgId: string): Promise<SigninConnection | null> {
    const row = await this.db.knex<ConnectionRow>(TABLE).where({ orgId, isActive: true }).first();
    if (!row) return null;
    const { oidc, saml, allowJit } = row.config;
    const base = { id: row.id, orgId, provider: row.provider, allowJit };
    if (oidc) {
      const clientSecret = row.clientSecretCiphertext ? this.crypto.envelope.decryptText(row.clientSecretCiphertext, 'federation.client_secret') : null;
      return { ...base, protocol: 'oidc', oidc: { ...oidc, clientSecret } };
    }
    return { ...base, protocol: 'saml', saml: saml! };
  }

  async active(orgId: string): Promise<ConnectionDto | null> {
    const row = await this.db.knex<ConnectionRow>(TABLE).where({ orgId, isActive: true }).first();
    return row ? toDto(row) : null;
  }

  /**
   * Saves a new connection and makes it the active one.
   * @throws 400 `IDP_CONFIG_INVALID` / `IDP_DISCOVERY_FAILED`, 409 `IDP_SWITCH_REQUIRES_DEACTIVATION`.
   */
  async create(orgId: string, createdBy: string, input: ConnectionInput): Promise<ConnectionDto> {
    const prior = await this.db.knex<ConnectionRow>(TABLE).where({ orgId, isActive: true }).first();
    if (prior && prior.provider !== input.provider) throw federationErrors.switchProvider(prior.provider);
    const config = await this.resolve(input, prior);
    const secret = protocolOf(input.provider) !== 'oidc' ? null
      : input.oidc_client_secret ? this.crypto.envelope.encrypt(input.oidc_client_secret, 'federation.client_secret') : (prior?.clientSecretCiphertext ?? null);
    const id = randomUUID();
    const row = await this.db.transaction(async (trx) => {
      const now = this.clock.now();
      if (prior) {
        const [off] = await trx(TABLE).where({ orgId, id: prior.id, isActive: true }).update({ isActive: false, deactivatedAt: now }).returning('id');
        if (!off) throw federationErrors.switchProvider(prior.provider); // another request changed it meanwhile
      }
      const [inserted] = await trx<ConnectionRow>(TABLE).insert({
        id, orgId, provider: input.provider, config: JSON.stringify(config), clientSecretCiphertext: secret, isActive: true, createdBy, createdAt: now,
      } as never).returning('*');
      await this.audit.append(trx, { orgId, eventType: 'org.idp_connection.created', businessData: { connectionId: id, provider: input.provider, replaced: prior?.id ?? null, ...auditConfig(config) } });
      return inserted;
    });
    return toDto(row);
  }

  /**
   * Runs what saving would run — validation, discovery or metadata fetch — and answers what was
   * found, saving nothing (the settings page's test button). Same errors as {@link create}, except
   * that another active provider is no obstacle.
   */
  async test(orgId: string, input: ConnectionInput): Promise<ConnectionDto> {
    const prior = await this.db.knex<ConnectionRow>(TABLE).where({ orgId, isActive: true, provider: input.provider }).first();
    const config = await this.resolve(input, prior);
    const secretSet = protocolOf(input.provider) === 'oidc' ? Boolean(input.oidc_client_secret || prior?.clientSecretCiphertext) : null;
    const { id: _id, is_active: _active, created_at: _created, ...found } = toDto({
      id: '', orgId, provider: input.provider, config, clientSecretCiphertext: secretSet ? 'set' : null, isActive: false, createdAt: new Date(0),
    });
    return found;
  }

  private async resolve(input: ConnectionInput, prior: ConnectionRow | undefined): Promise<StoredConfig> {
    const config: StoredConfig = { allowJit: input.allow_jit ?? false };
    if (protocolOf(input.provider) === 'oidc') config.oidc = await this.oidc(input);
    else config.saml = await this.saml(input, prior?.config.saml);
    return config;
  }

  /**
   * Back to native login; with `provider`, only when the active connection is that provider's.
   * @throws 404 `idp_not_configured` when nothing (of that provider) is active.
   */
  async deactivate(orgId: string, provider?: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const [row] = await trx(TABLE).where({ orgId, isActive: true, ...(provider ? { provider } : {}) })
        .update({ isActive: false, deactivatedAt: this.clock.now() }).returning(['id', 'provider']);
      if (!row) throw federationErrors.notConfigured();
      await this.audit.append(trx, { orgId, eventType: 'org.idp_connection.deactivated', businessData: { connectionId: row.id, provider: row.provider } });
    });
  }

  private async oidc(input: ConnectionInput): Promise<NonNullable<StoredConfig['oidc']>> {
    if (!input.oidc_client_id) throw federationErrors.invalid('oidc_client_id', 'oidc_client_id is required.');
    const manual = [input.oidc_issuer, input.oidc_authorization_endpoint, input.oidc_token_endpoint];
    if (input.oidc_discovery_url) {
      if (manual.some((v) => v)) throw federationErrors.invalid('oidc_discovery_url', 'Give the discovery URL or the three endpoints, not both.');
      const url = await this.checked('oidc_discovery_url', input.oidc_discovery_url);
      return { discoveryUrl: url, ...(await discover(this.egress, url)), clientId: input.oidc_client_id };
    }
    if (manual.some((v) => !v)) throw federationErrors.invalid('oidc_issuer', 'Give oidc_discovery_url, or oidc_issuer, oidc_authorization_endpoint and oidc_token_endpoint.');
    return {
      discoveryUrl: null, issuer: await this.checked('oidc_issuer', input.oidc_issuer!),
      authorizationEndpoint: browserUrl('oidc_authorization_endpoint', input.oidc_authorization_endpoint!),
      tokenEndpoint: await this.checked('oidc_token_endpoint', input.oidc_token_endpoint!), jwksUri: null, clientId: input.oidc_client_id,
    };
  }

  private async saml(input: ConnectionInput, prior: StoredConfig['saml'] | undefined): Promise<NonNullable<StoredConfig['saml']>> {
    const given = [input.saml_metadata_url, input.saml_metadata_xml, input.saml_sso_url || input.saml_entity_id].filter(Boolean).length;
    if (given !== 1) throw federationErrors.invalid('saml_metadata_url', 'Give one of saml_metadata_url, saml_metadata_xml, or saml_sso_url with saml_entity_id and saml_certificate.');
    if (input.saml_metadata_url) {
      const url = await this.checked('saml_metadata_url', input.saml_metadata_url);
      return { metadataUrl: url, ...this.metadata('saml_metadata_url', await this.fetchText(url)) };
    }
    if (input.saml_metadata_xml) return { metadataUrl: null, ...this.metadata('saml_metadata_xml', input.saml_metadata_xml) };
    if (!input.saml_sso_url || !input.saml_entity_id) throw federationErrors.invalid('saml_sso_url', 'saml_sso_url and saml_entity_id go together.');
    const ssoUrl = browserUrl('saml_sso_url', input.saml_sso_url);
    let certificates = prior?.certificates ?? [];
    if (input.saml_certificate) {
      const pem = toPem(input.saml_certificate);
      if (pem.startsWith('!')) throw federationErrors.invalid('saml_certificate', 'saml_certificate is not an X.509 certificate (PEM or base64 DER).');
      certificates = [pem];
    }
    if (!certificates.length) throw federationErrors.invalid('saml_certificate', 'saml_certificate is required.');
    return { metadataUrl: null, entityId: input.saml_entity_id, ssoUrl, certificates };
  }

  private metadata(field: string, xml: string): SamlIdp {
    const idp = readMetadata(xml);
    if (typeof idp === 'string') throw field === 'saml_metadata_url' ? federationErrors.discovery(field, idp) : federationErrors.invalid(field, `The metadata cannot be used: ${idp}.`);
    return idp;
  }

  private async fetchText(url: string): Promise<string> {
    try {
      const res = await this.egress.get(url, { headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' }, timeoutMs: 10_000, maxResponseBytes: MAX_METADATA_BYTES + 1 });
      if (res.status !== 200) throw federationErrors.discovery('saml_metadata_url', `HTTP ${res.status}`);
      return res.body.toString('utf8');
    } catch (err) {
      if (err instanceof EgressError) throw federationErrors.discovery('saml_metadata_url', err.detail);
      throw err;
    }
  }

  /** An https URL Aerie itself contacts: checked by `core.egress` (no private or metadata address). */
  private async checked(field: string, url: string): Promise<string> {
    try {
      return await this.egress.checkUrl(url);
    } catch (err) {
      if (err instanceof EgressError) throw federationErrors.invalid(field, `${field} is refused: ${err.detail}.`);
      throw err;
    }
  }
}

/**
 * An https URL only the member's browser visits (the authorization endpoint, the SAML SSO URL):
 * Aerie never connects to it, so its address is not Aerie's concern; it must be absolute https
 * without credentials.
 */
function browserUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw federationErrors.invalid(field, `${field} is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' || url.username || url.password) throw federationErrors.invalid(field, `${field} must be an https URL without credentials.`);
  return url.href;
}

const fingerprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');

function auditConfig(config: StoredConfig): Record<string, unknown> {
  return config.oidc
    ? { issuer: config.oidc.issuer, clientId: config.oidc.clientId, allowJit: config.allowJit }
    : { entityId: config.saml!.entityId, ssoUrl: config.saml!.ssoUrl, certificates: config.saml!.certificates.map(fingerprint), allowJit: config.allowJit };
}

function toDto(row: ConnectionRow): ConnectionDto {
  const c = row.config;
  const base = { id: row.id, provider: row.provider, protocol: protocolOf(row.provider), is_active: row.isActive, allow_jit: c.allowJit, created_at: new Date(row.createdAt).toISOString() };
  if (c.oidc) {
    return {
      ...base, oidc_discovery_url: c.oidc.discoveryUrl, oidc_issuer: c.oidc.issuer, oidc_authorization_endpoint: c.oidc.authorizationEndpoint,
      oidc_token_endpoint: c.oidc.tokenEndpoint, oidc_jwks_uri: c.oidc.jwksUri, oidc_client_id: c.oidc.clientId, oidc_client_secret_set: row.clientSecretCiphertext !== null,
    };
  }
  const s = c.saml!;
  return {
    ...base, saml_metadata_url: s.metadataUrl, saml_entity_id: s.entityId, saml_sso_url: s.ssoUrl,
    saml_certificates: s.certificates.map((pem) => ({ sha256: fingerprint(pem), not_after: new Date(new X509Certificate(pem).validTo).toISOString() })),
  };
}
