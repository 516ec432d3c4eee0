import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AuditService, type Clock, type CryptoService, type Database, type EventBus, isUuid } from '../../core/index.ts';
import { appsErrors } from './errors.ts';
import { checkConfig, defaultConfig, isPublicKind } from './client-config.ts';
import { checkSaml } from './saml-config.ts';
import type {
  ApplicationDto, ApplicationKind, ApplicationsService as ApplicationsServiceApi, ApplicationStatus, ApplicationUpdate, ApplicationWithSecret, ClientConfig,
  NewApplication, SamlServiceProvider,
} from './service-interfaces.ts';

/** Prefix of an application's public client id. @see docs/api/apps.md */
export const CLIENT_KEY_PREFIX = 'client_';
/** Prefix of a client secret (256 random bits follow). */
export const CLIENT_SECRET_PREFIX = 'secret_';

interface ApplicationRow extends ClientConfig {
  id: string;
  orgId: string;
  appGroupId: string;
  name: string;
  kind: ApplicationKind;
  environment: ApplicationDto['environment'];
  status: ApplicationStatus;
  clientKey: string;
  saml: SamlServiceProvider | null;
  secretHash: string | null;
  secretRotatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const TABLE = 'apps.applications';

/**
 * `apps.applications`: an organization's applications (OIDC clients). Confidential clients (Web,
 * Machine) get a secret shown once and stored as its SHA-256; every change is audited in its
 * transaction. Ids of other organizations look absent (404).
 * @see docs/api/apps.md
 */
@injectable()
export class ApplicationsService implements ApplicationsServiceApi {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
  ) {}

  async list(orgId: string, appGroupId?: string): Promise<ApplicationDto[]> {
    const q = this.db.knex<ApplicationRow>(TABLE).where({ orgId }).orderBy('createdAt').orderBy('id');
    if (appGroupId !== undefined) {
      if (!isUuid(appGroupId)) return [];
      q.andWhere({ appGroupId });
    }
    return (await q.select('*')).map(toDto);
  }

  async get(orgId: string, appId: string): Promise<ApplicationDto | undefined> {
    if (!isUuid(appId)) return undefined;
    const row = await this.db.knex<ApplicationRow>(TABLE).where({ orgId, id: appId }).first();
    return row && toDto(row);
  }

  async create(orgId: string, input: NewApplication): Promise<ApplicationWithSecret> {
    const created = await this.db.transaction(async (trx) => {
      const group = isUuid(input.appGroupId) ? await trx('apps.app_groups').where({ orgId, id: input.appGroupId }).forUpdate().first('id') : undefined;
      if (!group) throw appsErrors.unknownAppGroup();
      return this.insert(trx, orgId, input);
    });
    this.events.emit({ type: 'org.application.created', orgId, payload: { orgId, applicationId: created.id, appGroupId: created.appGroupId } });
    return created;
  }

  /**
   * Inserts an application into an existing group of the organization inside `trx`, audited there
   * (the app-groups service creates a group's first application this way).
   * @throws 400 `VALIDATION_FAILED`, `CLIENT_CONFIG_INVALID`
   */
  async insert(trx: Knex.Transaction, orgId: string, input: NewApplication): Promise<ApplicationWithSecret> {
    const { appGroupId, name, kind, environment, saml, ...given } = input;
    const config: ClientConfig = { ...defaultConfig(kind), ...definedOnly(given) };
    checkConfig(kind, config);
    if (saml) checkSaml(saml);
    const secret = isPublicKind(kind) ? null : this.newSecret();
    const now = this.clock.now();
    const [row] = await trx<ApplicationRow>(TABLE).insert({
      id: randomUUID(), orgId, appGroupId, name, kind, environment, status: 'active', clientKey: CLIENT_KEY_PREFIX + this.crypto.randomToken(16),
      ...jsonColumns(config), pkceRequired: config.pkceRequired, tokenEndpointAuthMethod: config.tokenEndpointAuthMethod, firstParty: config.firstParty,
      saml: saml ? JSON.stringify(saml) : null, secretHash: secret && this.crypto.sha256Hex(secret), secretRotatedAt: null, createdAt: now, updatedAt: now,
    } as never).returning('*');
    await this.audit.append(trx, { orgId, eventType: 'org.application.created', businessData: auditData(row) });
    return { ...toDto(row), clientSecret: secret };
  }

  async update(orgId: string, appId: string, input: ApplicationUpdate): Promise<ApplicationDto> {
    return this.change(orgId, appId, 'org.application.updated', (row) => {
      const { name, saml, ...given } = input;
      const config: ClientConfig = { ...pickConfig(row), ...definedOnly(given) };
      checkConfig(row.kind, config);
      if (saml) checkSaml(saml);
      return {
        ...(name !== undefined ? { name } : {}), ...(saml !== undefined ? { saml: saml && JSON.stringify(saml) } : {}),
        ...jsonColumns(config), pkceRequired: config.pkceRequired, tokenEndpointAuthMethod: config.tokenEndpointAuthMethod, firstParty: config.firstParty,
      };
    });
  }

  async setStatus(orgId: string, appId: string, status: ApplicationStatus): Promise<ApplicationDto> {
    return this.change(orgId, appId, 'org.application.status_changed', () => ({ status }));
  }

  async rotateSecret(orgId: string, appId: string): Promise<ApplicationWithSecret> {
    const secret = this.newSecret();
    const row = await this.change(orgId, appId, 'org.application.secret_rotated', (current) => {
      if (isPublicKind(current.kind)) throw appsErrors.publicClientHasNoSecret();
      return { secretHash: this.crypto.sha256Hex(secret), secretRotatedAt: this.clock.now() };
    });
    return { ...row, clientSecret: secret };
  }

  async delete(orgId: string, appId: string): Promise<void> {
    if (!isUuid(appId)) throw appsErrors.applicationNotFound();
    await this.db.transaction(async (trx) => {
      const [row] = await trx<ApplicationRow>(TABLE).where({ orgId, id: appId }).delete().returning('*');
      if (!row) throw appsErrors.applicationNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.application.deleted', businessData: auditData(row) });
    });
    this.events.emit({ type: 'org.application.deleted', orgId, payload: { orgId, applicationId: appId } });
  }

  async findByClientKey(clientKey: string): Promise<(ApplicationDto & { orgId: string }) | undefined> {
    if (!/^client_[A-Za-z0-9_-]{1,100}$/.test(clientKey)) return undefined;
    const row = await this.db.knex<ApplicationRow>(TABLE).where({ clientKey }).first();
    return row && { ...toDto(row), orgId: row.orgId };
  }

  async verifySecret(clientKey: string, secret: string): Promise<boolean> {
    const row = await this.db.knex<ApplicationRow>(TABLE).where({ clientKey, status: 'active' }).first('secretHash');
    const hash = this.crypto.sha256Hex(secret);
    return !!row?.secretHash && this.crypto.constantTimeEqual(row.secretHash, hash);
  }

  /** Locks the row, applies `patch(row)`, audits `eventType` with the new state. */
  private async change(orgId: string, appId: string, eventType: string, patch: (row: ApplicationRow) => Partial<Record<keyof ApplicationRow, unknown>>): Promise<ApplicationDto> {
    if (!isUuid(appId)) throw appsErrors.applicationNotFound();
    return this.db.transaction(async (trx) => {
      const current = await trx<ApplicationRow>(TABLE).where({ orgId, id: appId }).forUpdate().first();
      if (!current) throw appsErrors.applicationNotFound();
      const [row] = await trx<ApplicationRow>(TABLE).where({ orgId, id: appId }).update({ ...patch(current), updatedAt: this.clock.now() } as never).returning('*');
      await this.audit.append(trx, { orgId, eventType, businessData: auditData(row) });
      return toDto(row);
    });
  }

  private newSecret(): string {
    return CLIENT_SECRET_PREFIX + this.crypto.randomToken(32);
  }
}

/** What the audit chain records about an application: its configuration, never a secret or hash. */
function auditData(row: ApplicationRow): Record<string, unknown> {
  return {
    applicationId: row.id, appGroupId: row.appGroupId, name: row.name, kind: row.kind, environment: row.environment, status: row.status,
    clientKey: row.clientKey, ...pickConfig(row), saml: row.saml,
  };
}

function pickConfig(row: ClientConfig): ClientConfig {
  const { redirectUris, postLogoutRedirectUris, grantTypes, allowedScopes, pkceRequired, tokenEndpointAuthMethod, firstParty } = row;
  return { redirectUris, postLogoutRedirectUris, grantTypes, allowedScopes, pkceRequired, tokenEndpointAuthMethod, firstParty };
}

function jsonColumns(c: ClientConfig) {
  return {
    redirectUris: JSON.stringify(c.redirectUris), postLogoutRedirectUris: JSON.stringify(c.postLogoutRedirectUris),
    grantTypes: JSON.stringify(c.grantTypes), allowedScopes: JSON.stringify(c.allowedScopes),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function toDto(row: ApplicationRow): ApplicationDto {
  return {
    id: row.id, appGroupId: row.appGroupId, name: row.name, kind: row.kind, environment: row.environment, status: row.status, clientKey: row.clientKey,
    ...pickConfig(row), confidential: !isPublicKind(row.kind), saml: row.saml ?? null,
    secretRotatedAt: row.secretRotatedAt ? new Date(row.secretRotatedAt).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
