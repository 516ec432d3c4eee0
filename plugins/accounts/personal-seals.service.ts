import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type Database, type EventBus } from '../../core/index.ts';
import { PasskeyModel, PersonalSealModel } from './models/passkey.model.ts';
import { internalRefs } from './internal-refs.ts';
import type { PasskeysRepository } from './passkeys.repository.ts';
import { shortFingerprint } from './relying-party.ts';
import { accountsErrors } from './errors.ts';
import type { PersonalSealsService as PersonalSealsServiceApi } from './service-interfaces.ts';

/** The passkey an account bound as its personal seal. @see docs/api/accounts.md, docs/api/public-v1.md */
export interface PersonalSealDto {
  credentialId: string;
  /** First 16 hex characters of SHA-256 over the credential public key. */
  keyFingerprint: string;
  boundAt: string;
}

/**
 * `accounts.personalSeals`: binds one of an account's passkeys as its personal seal
 * (`POST /api/v1/seals`; no security mail, docs/audit.md) and answers whether an account has
 * one — the owner's half of an organization's `ready`.
 */
@injectable()
export class PersonalSealsService implements PersonalSealsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(internalRefs.passkeys.id) private readonly passkeys: PasskeysRepository,
  ) {}

  /**
   * Binds the account's passkey `credentialId` as its personal seal, replacing an earlier binding.
   * @throws 404 `PASSKEY_NOT_FOUND` (also for another account's passkey)
   */
  async bind(accountId: string, credentialId: string): Promise<PersonalSealDto> {
    const seal = await this.db.transaction(async (trx) => {
      const passkey = await this.passkeys.findOwned(accountId, credentialId, trx);
      if (!passkey) throw accountsErrors.passkeyNotFound();
      await PersonalSealModel.query(trx).insert({ accountId, passkeyId: passkey.id, boundAt: this.clock.now() }).onConflict('accountId').merge();
      return (await this.get(accountId, trx))!;
    });
    this.events.emit({ type: 'account.updated', payload: { accountId } });
    this.events.emit({ type: 'seal.personal.bound', payload: { accountId, keyId: seal.credentialId } });
    return seal;
  }

  /** The account's personal seal, or null. */
  async get(accountId: string, trx?: Knex.Transaction): Promise<PersonalSealDto | null> {
    const row = await PersonalSealModel.query(trx ?? this.db.knex).findById(accountId);
    const passkey = row && (await PasskeyModel.query(trx ?? this.db.knex).findById(row.passkeyId));
    if (!row || !passkey) return null;
    return { credentialId: passkey.credentialId, keyFingerprint: shortFingerprint(passkey.fingerprint), boundAt: new Date(row.boundAt).toISOString() };
  }

  /** Whether the account has bound a personal seal (a removed passkey unbinds it). */
  async hasPersonalSeal(accountId: string): Promise<boolean> {
    return !!(await PersonalSealModel.query(this.db.knex).findById(accountId));
  }
}
