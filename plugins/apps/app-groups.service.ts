import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  coreRefs, inject, injectable, type AerieConfig, type AuditService, type BlobStore, type Clock, type CryptoService, type Database, type EventBus, isUuid,
} from '../../core/index.ts';
import { appsErrors } from './errors.ts';
import { appsInternalRefs } from './internal-refs.ts';
import type { ApplicationsService } from './applications.service.ts';
import { rpIdProblem } from './passkey-rp-id.ts';
import type {
  AppGroupDto, AppGroupInput, AppGroupsService as AppGroupsServiceApi, ApplicationWithSecret, HostedLoginBranding, ServiceModel,
} from './service-interfaces.ts';

/** Prefix of an app group's public key. @see docs/api/apps.md */
export const APP_GROUP_KEY_PREFIX = 'appgroup_';

/** The branding of a group that set none; a stored branding's missing members read as these. */
const DEFAULT_BRANDING: HostedLoginBranding = {
  primaryColor: null, backgroundColor: null, heroTitle: null, heroSubtitle: null, passkeyEnabled: true, magicLinkEnabled: true, aerieAccountEnabled: false, socialProviders: [],
};

/** A stored app group (camelCase through the knex mappers). */
export interface AppGroupRow {
  id: string;
  orgId: string;
  publicKey: string;
  name: string;
  description: string | null;
  iconUrl: string | null;
  brandColor: string | null;
  monetizationEnabled: boolean;
  branding: Partial<HostedLoginBranding>;
  passkeyRpId: string | null;
  serviceModel: ServiceModel | null;
  field: string | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The `core.blob` key of a group's uploaded icon (one per group; a new upload replaces it). */
export function iconBlobKey(orgId: string, groupId: string): string {
  return `org/${orgId}/app-groups/${groupId}/icon`;
}

/** The app groups table. */
export const APP_GROUPS_TABLE = 'apps.app_groups';
const TABLE = APP_GROUPS_TABLE;

/**
 * `apps.appGroups`: an organization's app groups. Creating one also creates its first application
 * (Web, Development) in the same transaction; deleting one deletes its applications. Every change
 * is audited in its transaction. Ids of other organizations look absent (404).
 * @see docs/api/apps.md
 */
@injectable()
export class AppGroupsService implements AppGroupsServiceApi {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(appsInternalRefs.applications.id) private readonly applications: ApplicationsService,
  ) {}

  async list(orgId: string): Promise<AppGroupDto[]> {
    const rows = await this.db.knex<AppGroupRow>(TABLE).where({ orgId }).orderBy('createdAt').orderBy('id').select('*');
    return rows.map(toDto);
  }

  async get(orgId: string, groupId: string): Promise<AppGroupDto | undefined> {
    if (!isUuid(groupId)) return undefined;
    const row = await this.db.knex<AppGroupRow>(TABLE).where({ orgId, id: groupId }).first();
    return row && toDto(row);
  }

  async findByPublicKey(orgId: string, publicKey: string): Promise<AppGroupDto | undefined> {
    const row = await this.db.knex<AppGroupRow>(TABLE).where({ orgId, publicKey }).first();
    return row && toDto(row);
  }

  async exists(orgId: string, groupId: string): Promise<boolean> {
    return (await this.get(orgId, groupId)) !== undefined;
  }

  async create(orgId: string, createdBy: string | null, input: AppGroupInput & { name: string }): Promise<AppGroupDto & { application: ApplicationWithSecret }> {
    const now = this.clock.now();
    // A new group has no redirect URIs yet: only the service's own host can be its RP ID.
    if (input.passkeyRpId) this.checkRpId(input.passkeyRpId, []);
    const created = await this.db.transaction(async (trx) => {
      const [row] = await trx<AppGroupRow>(TABLE).insert({
        id: randomUUID(), orgId, publicKey: APP_GROUP_KEY_PREFIX + this.crypto.randomToken(16), name: input.name,
        description: input.description ?? null, iconUrl: input.iconUrl ?? null, brandColor: input.brandColor ?? null,
        monetizationEnabled: input.monetizationEnabled ?? false, branding: JSON.stringify(withDefaults(input.branding)),
        passkeyRpId: input.passkeyRpId ?? null, serviceModel: input.serviceModel ?? null, field: input.field ?? null, createdBy, createdAt: now, updatedAt: now,
      } as never).returning('*');
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.created', businessData: auditData(row) });
      const application = await this.applications.insert(trx, orgId, { appGroupId: row.id, name: row.name, kind: 'Web', environment: 'Development' });
      return { ...toDto(row), application };
    });
    this.events.emit({ type: 'org.app_group.created', orgId, payload: { orgId, appGroupId: created.id, applicationId: created.application.id } });
    return created;
  }

  async update(orgId: string, groupId: string, input: AppGroupInput): Promise<AppGroupDto> {
    if (!isUuid(groupId)) throw appsErrors.appGroupNotFound();
    const patch: Record<string, unknown> = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
    if (input.branding) patch.branding = JSON.stringify(withDefaults(input.branding));
    const row = await this.db.transaction(async (trx) => {
      // The group first: a foreign id is 404 whatever the body holds.
      if (!(await trx(TABLE).where({ orgId, id: groupId }).forUpdate().first('id'))) throw appsErrors.appGroupNotFound();
      if (input.passkeyRpId) this.checkRpId(input.passkeyRpId, await redirectHosts(trx, orgId, groupId));
      const [updated] = await trx<AppGroupRow>(TABLE).where({ orgId, id: groupId }).update({ ...patch, updatedAt: this.clock.now() } as never).returning('*');
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.updated', businessData: { ...auditData(updated), changed: Object.keys(patch) } });
      return updated;
    });
    this.events.emit({ type: 'org.app_group.updated', orgId, payload: { orgId, appGroupId: groupId } });
    return toDto(row);
  }

  async delete(orgId: string, groupId: string): Promise<void> {
    if (!isUuid(groupId)) throw appsErrors.appGroupNotFound();
    await this.db.transaction(async (trx) => {
      const group = await trx<AppGroupRow>(TABLE).where({ orgId, id: groupId }).forUpdate().first();
      if (!group) throw appsErrors.appGroupNotFound();
      const apps: Array<{ id: string; name: string; clientKey: string }> = await trx('apps.applications').where({ orgId, appGroupId: groupId }).delete().returning(['id', 'name', 'clientKey']);
      for (const app of apps) {
        await this.audit.append(trx, { orgId, eventType: 'org.application.deleted', businessData: { applicationId: app.id, appGroupId: groupId, name: app.name, clientKey: app.clientKey } });
      }
      await trx(TABLE).where({ orgId, id: groupId }).delete();
      await this.audit.append(trx, { orgId, eventType: 'org.app_group.deleted', businessData: { ...auditData(group), applicationIds: apps.map((a) => a.id) } });
      await this.blob.delete(iconBlobKey(orgId, groupId));
    });
    this.events.emit({ type: 'org.app_group.deleted', orgId, payload: { orgId, appGroupId: groupId } });
  }

  /** @throws 400 `RP_ID_INVALID` unless `rpId` is the service's host or covers one of `hosts`. */
  private checkRpId(rpId: string, hosts: readonly string[]): void {
    const problem = rpIdProblem(rpId, new URL(this.config.baseUrl).hostname, hosts);
    if (problem) throw appsErrors.rpIdInvalid(rpId, problem);
  }
}

/** Hosts of the redirect URIs of the group's applications. */
async function redirectHosts(trx: Knex.Transaction, orgId: string, groupId: string): Promise<string[]> {
  const rows: Array<{ redirectUris: string[] }> = await trx('apps.applications').where({ orgId, appGroupId: groupId }).select('redirectUris');
  return rows.flatMap((r) => r.redirectUris).flatMap((uri) => {
    try {
      return [new URL(uri).hostname];
    } catch {
      return [];
    }
  });
}

function withDefaults(branding: Partial<HostedLoginBranding> | undefined): HostedLoginBranding {
  return { ...DEFAULT_BRANDING, ...branding };
}

function auditData(row: AppGroupRow): Record<string, unknown> {
  return {
    appGroupId: row.id, publicKey: row.publicKey, name: row.name, description: row.description, iconUrl: row.iconUrl, brandColor: row.brandColor,
    monetizationEnabled: row.monetizationEnabled, branding: withDefaults(row.branding), passkeyRpId: row.passkeyRpId, serviceModel: row.serviceModel, field: row.field,
  };
}

/** A stored group as answered. */
export function toDto(row: AppGroupRow): AppGroupDto {
  return {
    id: row.id, publicKey: row.publicKey, name: row.name, description: row.description, iconUrl: row.iconUrl, brandColor: row.brandColor,
    monetizationEnabled: row.monetizationEnabled, branding: withDefaults(row.branding), passkeyRpId: row.passkeyRpId, serviceModel: row.serviceModel,
    field: row.field, createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
