import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AerieConfig, type Clock, type Database, type EventBus } from '../../core/index.ts';
import { AccountModel } from './models/account.model.ts';
import type { AccountDto } from './api.ts';
import type { AccountsService as AccountsServiceApi } from './service-interfaces.ts';
import { accountsErrors } from './errors.ts';

/** `accounts.accounts`: reads and changes accounts. */
@injectable()
export class AccountsService implements AccountsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
  ) {}

  /** The account with this id, or `undefined`. */
  async findById(id: string, trx?: Knex.Transaction): Promise<AccountModel | undefined> {
    return AccountModel.query(trx ?? this.db.knex).findById(id);
  }

  /** The Aerie account with this email (case-insensitive), or `undefined`; never a federated account. */
  async findByEmail(email: string, trx?: Knex.Transaction): Promise<AccountModel | undefined> {
    return AccountModel.query(trx ?? this.db.knex).findOne({ email: email.toLowerCase() }).whereNull('federatedOrgId');
  }

  /** The account organization `orgId`'s IdP or SCIM made for this email, or `undefined`. */
  async findFederated(orgId: string, email: string, trx?: Knex.Transaction): Promise<AccountModel | undefined> {
    return AccountModel.query(trx ?? this.db.knex).findOne({ email: email.toLowerCase(), federatedOrgId: orgId });
  }

  /**
   * Returns organization `orgId`'s account for this email, creating it when new: federated to
   * `orgId`, `emailVerifiedAt` null (the tenant vouched for the address, Aerie did not).
   */
  async ensureFederated(orgId: string, email: string, displayName: string | null, trx: Knex.Transaction): Promise<{ account: AccountModel; created: boolean }> {
    const existing = await this.findFederated(orgId, email, trx);
    if (existing) return { account: existing, created: false };
    const now = this.clock.now();
    const account = await AccountModel.query(trx).insertAndFetch({
      id: randomUUID(), email: email.toLowerCase(), displayName, emailVerifiedAt: null, federatedOrgId: orgId, createdAt: now, updatedAt: now,
    });
    return { account, created: true };
  }

  /** Changes the address of `orgId`'s own account; false when it is not, or the address is another of its accounts'. */
  async changeFederatedEmail(orgId: string, accountId: string, email: string, trx: Knex.Transaction): Promise<boolean> {
    const address = email.toLowerCase();
    const taken = await AccountModel.query(trx).findOne({ federatedOrgId: orgId, email: address }).whereNot({ id: accountId });
    if (taken) return false;
    const changed = await AccountModel.query(trx).where({ id: accountId, federatedOrgId: orgId }).patch({ email: address, updatedAt: this.clock.now() });
    if (changed > 0) this.events.emit({ type: 'account.updated', payload: { accountId } });
    return changed > 0;
  }

  /**
   * Returns the Aerie account for an email Aerie itself just verified, creating it (with
   * `displayName`) when new; never a federated account.
   * @returns the account and whether it was created now.
   */
  async ensureVerified(email: string, displayName: string | null, trx: Knex.Transaction): Promise<{ account: AccountModel; created: boolean }> {
    const now = this.clock.now();
    const existing = await this.findByEmail(email, trx);
    if (existing) {
      if (!existing.emailVerifiedAt) await existing.$query(trx).patch({ emailVerifiedAt: now });
      return { account: existing, created: false };
    }
    const account = await AccountModel.query(trx).insertAndFetch({
      id: randomUUID(), email: email.toLowerCase(), displayName, emailVerifiedAt: now, federatedOrgId: null, createdAt: now, updatedAt: now,
    });
    return { account, created: true };
  }

  /** Changes the display name. @throws 404 `NOT_FOUND` for an unknown account. */
  async updateProfile(id: string, patch: { displayName: string }): Promise<AccountDto> {
    const account = await this.findById(id);
    if (!account) throw accountsErrors.accountNotFound();
    const updated = await account.$query(this.db.knex).patchAndFetch({ displayName: patch.displayName, updatedAt: this.clock.now() });
    this.events.emit({ type: 'account.updated', payload: { accountId: id } });
    return this.toDto(updated);
  }

  /** The client-facing shape of an account. */
  toDto(a: AccountModel): AccountDto {
    return {
      id: a.id,
      email: a.email,
      displayName: a.displayName,
      emailVerified: a.emailVerifiedAt !== null,
      platformAdmin: this.isPlatformAdmin(a),
      ...(a.federatedOrgId ? { federatedOrgId: a.federatedOrgId } : {}),
      createdAt: new Date(a.createdAt).toISOString(),
    };
  }

  /** An Aerie account (never a federated one) listed in `AERIE_PLATFORM_ADMINS` (case-insensitive). */
  isPlatformAdmin(account: Pick<AccountModel, 'email' | 'federatedOrgId'>): boolean {
    return !account.federatedOrgId && this.config.platformAdmins.includes(account.email.toLowerCase());
  }
}
