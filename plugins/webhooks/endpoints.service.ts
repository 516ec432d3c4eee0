import { randomBytes, randomUUID } from 'node:crypto';
import {
  coreRefs, EgressError, inject, injectable,
  type AuditLog, type AuditService, type Clock, type CryptoService, type Database, type Egress, isUuid,
} from '../../core/index.ts';
import { isValidPatternList } from './event-patterns.ts';
import { webhooksErrors } from './errors.ts';

/** Endpoints an organization may have (deleted ones do not count). @see docs/api/webhooks.md */
export const MAX_ENDPOINTS = 20;

/** An endpoint as the API shows it (never the secret). @see docs/api/webhooks.md "The endpoint object" */
export interface EndpointDto {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  isActive: boolean;
  consecutiveFailures: number;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Who creates an endpoint: the actor, and whether they are the Owner (payment events). */
export interface EndpointCreator {
  type: string;
  id: string;
  owner: boolean;
}

interface EndpointRow {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  description: string | null;
  secretCiphertext: string;
  isActive: boolean;
  consecutiveFailures: number;
  disabledAt: Date | null;
  fromSeq: string | number;
  createdAt: Date;
  updatedAt: Date;
}

const TABLE = 'webhooks.endpoints';

/** A new signing secret: `whsec_` + base64 of 24 random bytes (Standard Webhooks). */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * `webhooks.endpoints`: an organization's outbound webhook endpoints. URLs are checked through
 * `core.egress` at registration (https, no private or metadata address); secrets are envelope-
 * encrypted (bound to the endpoint id) and shown once; every change is audited. Other
 * organizations' ids and deleted endpoints look absent (404).
 * @see docs/api/webhooks.md
 */
@injectable()
export class EndpointsService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.auditLog.id) private readonly auditLog: AuditLog,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.egress.id) private readonly egress: Egress,
  ) {}

  async list(orgId: string): Promise<EndpointDto[]> {
    const rows = await this.live(orgId).orderBy('createdAt').orderBy('id').select('*');
    return rows.map(toDto);
  }

  async get(orgId: string, id: string): Promise<EndpointDto> {
    return toDto(await this.row(orgId, id));
  }

  /**
   * Registers an endpoint. @returns it with its `secret`, shown this once.
   * @throws 400 `WEBHOOK_URL_REFUSED`, `WEBHOOK_EVENTS_INVALID`; 409 `WEBHOOK_LIMIT_REACHED`.
   */
  async create(orgId: string, creator: EndpointCreator, input: { url: string; events: string[]; description?: string | null }): Promise<EndpointDto & { secret: string }> {
    const url = await this.checkUrl(input.url);
    if (!isValidPatternList(input.events)) throw webhooksErrors.eventsInvalid();
    const id = randomUUID();
    const secret = newSecret();
    const now = this.clock.now();
    // Only events sealed after this moment are delivered to the new endpoint.
    const fromSeq = await this.auditLog.headSeq(orgId);
    const row = await this.db.transaction(async (trx) => {
      // One writer at a time per organization, so the limit holds under concurrent creates.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhooks:${orgId}`]);
      const [{ count }] = await trx(TABLE).where({ orgId }).whereNull('deletedAt').count({ count: '*' });
      if (Number(count) >= MAX_ENDPOINTS) throw webhooksErrors.limitReached(MAX_ENDPOINTS);
      const [inserted] = await trx<EndpointRow>(TABLE).insert({
        id, orgId, url, events: JSON.stringify(input.events), description: input.description ?? null,
        secretCiphertext: this.crypto.envelope.encrypt(secret, aad(id)), isActive: true, consecutiveFailures: 0,
        fromSeq, createdByType: creator.type, createdById: creator.id, createdByOwner: creator.owner, createdAt: now, updatedAt: now,
      } as never).returning('*');
      await trx('webhooks.cursors').insert({ orgId, seq: fromSeq, updatedAt: now }).onConflict('orgId').ignore();
      await this.audit.append(trx, { orgId, eventType: 'org.webhook.created', businessData: auditData(inserted) });
      return inserted;
    });
    return { ...toDto(row), secret };
  }

  /** Changes url, events or description (only the members sent). @throws as {@link create}; 404. */
  async update(orgId: string, id: string, input: { url?: string; events?: string[]; description?: string | null }): Promise<EndpointDto> {
    const patch: Record<string, unknown> = {};
    if (input.url !== undefined) patch.url = await this.checkUrl(input.url);
    if (input.events !== undefined) {
      if (!isValidPatternList(input.events)) throw webhooksErrors.eventsInvalid();
      patch.events = JSON.stringify(input.events);
    }
    if (input.description !== undefined) patch.description = input.description;
    return this.change(orgId, id, 'org.webhook.updated', patch, { changed: Object.keys(patch) });
  }

  /** A new secret; the old one stops signing at once. @returns `{ id, secret }`, shown this once. */
  async rotateSecret(orgId: string, id: string): Promise<{ id: string; secret: string }> {
    const secret = newSecret();
    await this.change(orgId, id, 'org.webhook.secret_rotated', { secretCiphertext: this.crypto.envelope.encrypt(secret, aad(id)) });
    return { id, secret };
  }

  /** Enables (clearing the failure counter) or disables an endpoint. */
  async toggle(orgId: string, id: string, isActive: boolean): Promise<EndpointDto> {
    const patch = isActive ? { isActive, consecutiveFailures: 0, disabledAt: null } : { isActive, disabledAt: this.clock.now() };
    return this.change(orgId, id, isActive ? 'org.webhook.enabled' : 'org.webhook.disabled', patch);
  }

  /** Soft delete: the row and its deliveries stay; nothing is sent to it again. */
  async delete(orgId: string, id: string): Promise<void> {
    await this.change(orgId, id, 'org.webhook.deleted', { deletedAt: this.clock.now(), isActive: false });
  }

  /** The endpoint's signing secret (for the dispatcher). */
  secretOf(id: string, ciphertext: string): string {
    return this.crypto.envelope.decryptText(ciphertext, aad(id));
  }

  private async change(orgId: string, id: string, eventType: string, patch: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<EndpointDto> {
    if (!isUuid(id)) throw webhooksErrors.endpointNotFound();
    const row = await this.db.transaction(async (trx) => {
      const [updated] = await trx<EndpointRow>(TABLE).where({ orgId, id }).whereNull('deletedAt')
        .update({ ...patch, updatedAt: this.clock.now() } as never).returning('*');
      if (!updated) throw webhooksErrors.endpointNotFound();
      await this.audit.append(trx, { orgId, eventType, businessData: { ...auditData(updated), ...extra } });
      return updated;
    });
    return toDto(row);
  }

  private async row(orgId: string, id: string): Promise<EndpointRow> {
    const row = isUuid(id) ? await this.live(orgId).where({ id }).first() : undefined;
    if (!row) throw webhooksErrors.endpointNotFound();
    return row;
  }

  private live(orgId: string) {
    return this.db.knex<EndpointRow>(TABLE).where({ orgId }).whereNull('deletedAt');
  }

  private async checkUrl(url: string): Promise<string> {
    try {
      return await this.egress.checkUrl(url);
    } catch (error) {
      if (error instanceof EgressError) throw webhooksErrors.urlRefused(error.detail, error.failureClass);
      throw error;
    }
  }
}

/** The secret's envelope is bound to its endpoint: copied to another row, it does not decrypt. */
const aad = (id: string) => `webhooks.endpoint:${id}`;

function auditData(row: EndpointRow): Record<string, unknown> {
  return { endpointId: row.id, url: row.url, events: row.events, description: row.description, isActive: row.isActive };
}

export function toDto(row: EndpointRow): EndpointDto {
  return {
    id: row.id, url: row.url, events: row.events, description: row.description, isActive: row.isActive,
    consecutiveFailures: row.consecutiveFailures, disabledAt: row.disabledAt ? new Date(row.disabledAt).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(), updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
