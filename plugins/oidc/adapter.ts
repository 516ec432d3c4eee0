import type { Adapter, AdapterPayload } from 'oidc-provider';
import { hasBadText, type Clock, type Database } from '../../core/index.ts';

/** The table behind every organization's provider. */
export const PAYLOADS = 'oidc.payloads';

/**
 * Whether `id` can name a row: a string of 1–512 characters that PostgreSQL can hold (no U+0000, no
 * lone surrogate). Anything else a client sends (`refresh_token=%00`, `token=%00`) names no row: the
 * provider answers it as an unknown token (`invalid_grant`, `{"active":false}`), never a 500.
 */
function usableId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= 512 && !hasBadText(id);
}

/** Where a provider's `Client` model comes from: the organization's applications (see client-metadata.ts). */
export type ClientSource = (clientId: string) => Promise<AdapterPayload | undefined>;

interface PayloadRow {
  payload: AdapterPayload;
  consumedAt: Date | null;
  expiresAt: Date | null;
}

/**
 * oidc-provider's storage for one organization and one model (Session, Interaction, Grant,
 * AuthorizationCode, RefreshToken, …) on `oidc.payloads`. Every query is bound to the organization,
 * so a token, code or session id of another organization is simply not found. Expired rows read as
 * absent. The `Client` model is answered from the organization's applications instead.
 * @see https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js (the interface)
 */
export class OrgPayloadAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly orgId: string,
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly clients: ClientSource,
    /** The error a use of an already consumed code or refresh token ends in (the provider's `invalid_grant`). */
    private readonly alreadyConsumed: (model: string) => Error = (model) => new Error(`${model} already consumed`),
  ) {}

  /** @param expiresIn - seconds from now; absent for rows that do not expire by time */
  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    if (this.model === 'Client') throw new Error('clients are the organization\'s applications (apps plugin), not written here');
    const expiresAt = expiresIn ? new Date(this.clock.now().getTime() + expiresIn * 1000) : null;
    await this.db.knex(PAYLOADS)
      .insert({ orgId: this.orgId, model: this.model, id, payload: JSON.stringify(payload), grantId: payload.grantId ?? null, uid: payload.uid ?? null, expiresAt, consumedAt: null })
      .onConflict(['orgId', 'model', 'id']).merge(['payload', 'grantId', 'uid', 'expiresAt']);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (!usableId(id)) return undefined;
    if (this.model === 'Client') return this.clients(id);
    return this.read(this.db.knex(PAYLOADS).where({ orgId: this.orgId, model: this.model, id }));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (!usableId(uid)) return undefined;
    return this.read(this.db.knex(PAYLOADS).where({ orgId: this.orgId, model: this.model, uid }));
  }

  /** Device flow: not enabled. */
  async findByUserCode(): Promise<AdapterPayload | undefined> {
    return undefined;
  }

  /**
   * Marks a code or refresh token used, atomically: only the first of concurrent uses of one token
   * marks it (the row update is conditional on it being unused). A later one lost a race with another
   * use of the same token, which is what reuse detection is for: the whole grant is revoked (every row
   * of it and the grant itself) and the use fails with `alreadyConsumed`.
   * @throws what `alreadyConsumed` makes, when the token was consumed (or removed) meanwhile
   */
  async consume(id: string): Promise<void> {
    if (!usableId(id)) throw this.alreadyConsumed(this.model);
    const marked = await this.db.knex(PAYLOADS).where({ orgId: this.orgId, model: this.model, id }).whereNull('consumedAt').update({ consumedAt: this.clock.now() });
    if (marked > 0) return;
    const row = (await this.db.knex(PAYLOADS).where({ orgId: this.orgId, model: this.model, id }).first('grantId')) as { grantId: string | null } | undefined;
    if (row?.grantId) await this.revokeGrant(row.grantId);
    throw this.alreadyConsumed(this.model);
  }

  async destroy(id: string): Promise<void> {
    if (!usableId(id)) return;
    await this.db.knex(PAYLOADS).where({ orgId: this.orgId, model: this.model, id }).delete();
  }

  /** Removes every row of the grant, whatever the model (a revoked refresh-token family, a logout). */
  async revokeByGrantId(grantId: string): Promise<void> {
    if (!usableId(grantId)) return;
    await this.db.knex(PAYLOADS).where({ orgId: this.orgId, grantId }).delete();
  }

  /** Removes a grant with everything issued under it. */
  private async revokeGrant(grantId: string): Promise<void> {
    await this.db.knex(PAYLOADS).where({ orgId: this.orgId, grantId }).orWhere({ orgId: this.orgId, model: 'Grant', id: grantId }).delete();
  }

  private async read(query: ReturnType<Database['knex']>): Promise<AdapterPayload | undefined> {
    const row = (await query.first('payload', 'consumedAt', 'expiresAt')) as PayloadRow | undefined;
    if (!row) return undefined;
    if (row.expiresAt && row.expiresAt.getTime() <= this.clock.now().getTime()) return undefined;
    return { ...row.payload, ...(row.consumedAt ? { consumed: Math.floor(row.consumedAt.getTime() / 1000) } : {}) };
  }
}

/**
 * Deletes rows that expired more than `graceSeconds` ago, across organizations.
 * @returns how many were deleted
 */
export async function purgeExpiredPayloads(db: Database, clock: Clock, graceSeconds = 3600): Promise<number> {
  return db.knex(PAYLOADS).where('expiresAt', '<', new Date(clock.now().getTime() - graceSeconds * 1000)).delete();
}
