import { randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type AuditService, type Clock, type CryptoService, type Database, isUuid } from '../../core/index.ts';
import { scimErrors } from './errors.ts';

/** A SCIM token as listed (never its value). @see docs/api/scim.md "Tokens" */
export interface ScimTokenDto {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface TokenRow {
  id: string;
  orgId: string;
  name: string;
  tokenHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const TABLE = 'scim.tokens';
const PREFIX = 'scim_';
/** `last_used_at` is written at most this often per token (milliseconds). */
const TOUCH_EVERY_MS = 60_000;

/**
 * `scim.tokens`: an organization's SCIM bearer tokens — `scim_` + 256 random bits, SHA-256 at rest,
 * shown once. Revoked tokens stay listed; erased ones are gone. Every change is audited.
 * @see docs/api/scim.md
 */
@injectable()
export class ScimTokensService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  async list(orgId: string): Promise<ScimTokenDto[]> {
    const rows = await this.db.knex<TokenRow>(TABLE).where({ orgId }).orderBy('createdAt').orderBy('id').select('*');
    return rows.map(toDto);
  }

  /** @returns the token and its `value`, shown this once. */
  async create(orgId: string, name: string, creator: { type: string; id: string }): Promise<ScimTokenDto & { value: string }> {
    const value = PREFIX + this.crypto.randomToken(32);
    const row = await this.db.transaction(async (trx) => {
      const [inserted] = await trx<TokenRow>(TABLE).insert({
        id: randomUUID(), orgId, name, tokenHash: this.crypto.sha256Hex(value), createdByType: creator.type, createdById: creator.id, createdAt: this.clock.now(),
      } as never).returning('*');
      await this.audit.append(trx, { orgId, eventType: 'org.scim_token.created', businessData: { tokenId: inserted.id, name } });
      return inserted;
    });
    return { ...toDto(row), value };
  }

  /** Revokes (the row stays listed). Idempotent on a revoked token. @throws 404 */
  async revoke(orgId: string, id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const row = isUuid(id) ? await trx<TokenRow>(TABLE).where({ orgId, id }).forUpdate().first() : undefined;
      if (!row) throw scimErrors.tokenNotFound();
      if (row.revokedAt) return;
      await trx(TABLE).where({ orgId, id }).update({ revokedAt: this.clock.now() });
      await this.audit.append(trx, { orgId, eventType: 'org.scim_token.revoked', businessData: { tokenId: id, name: row.name } });
    });
  }

  /** Erases the row (a revoked or live token). @throws 404 */
  async erase(orgId: string, id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const [row] = isUuid(id) ? await trx<TokenRow>(TABLE).where({ orgId, id }).delete().returning(['id', 'name']) : [];
      if (!row) throw scimErrors.tokenNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.scim_token.erased', businessData: { tokenId: id, name: row.name } });
    });
  }

  /** The live token behind `value`, or undefined. Notes its use (at most once a minute). */
  async verify(value: string): Promise<{ id: string; orgId: string } | undefined> {
    if (!value.startsWith(PREFIX) || value.length > 100) return undefined;
    const row = await this.db.knex<TokenRow>(TABLE).where({ tokenHash: this.crypto.sha256Hex(value) }).whereNull('revokedAt').first();
    if (!row) return undefined;
    const now = this.clock.now();
    if (!row.lastUsedAt || now.getTime() - new Date(row.lastUsedAt).getTime() > TOUCH_EVERY_MS) {
      await this.db.knex(TABLE).where({ id: row.id }).update({ lastUsedAt: now });
    }
    return { id: row.id, orgId: row.orgId };
  }
}

function toDto(row: TokenRow): ScimTokenDto {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return { id: row.id, name: row.name, createdAt: new Date(row.createdAt).toISOString(), lastUsedAt: iso(row.lastUsedAt), revokedAt: iso(row.revokedAt) };
}
