import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type Database, type PasskeyStore, type StoredPasskey } from '../../core/index.ts';
import { PasskeyModel, PersonalSealModel } from './models/passkey.model.ts';
import { shortFingerprint } from './relying-party.ts';

/** A passkey as its owner sees it (`GET /api/passkey/list`). */
export interface PasskeyDto {
  credentialId: string;
  name: string | null;
  /** First 16 hex characters of SHA-256 over the COSE public key (the value security mails show). */
  keyFingerprint: string;
  /** COSE_Key bytes as base64url: what a third party needs to verify this key's seal proofs (`aerie seal verify --public-key`). */
  publicKey: string;
  transports: string[];
  deviceType: string | null;
  backedUp: boolean;
  /** Bound as the account's personal seal (`POST /api/v1/seals`). */
  personalSeal: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * `accounts.passkeys`: the passkey table, and the {@link PasskeyStore} `core.seals` reads
 * (contributed to `coreExtensions.passkeys`).
 */
@injectable()
export class PasskeysRepository implements PasskeyStore {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** @inheritdoc */
  async listForAccount(accountId: string): Promise<StoredPasskey[]> {
    return (await this.rows(accountId)).map(toStored);
  }

  /** @inheritdoc */
  async find(credentialId: string): Promise<StoredPasskey | undefined> {
    const row = await PasskeyModel.query(this.db.knex).findOne({ credentialId });
    return row && toStored(row);
  }

  /** @inheritdoc */
  async advanceCounter(input: { credentialId: string; from: number; to: number }, trx: Knex.Transaction): Promise<boolean> {
    const n = await PasskeyModel.query(trx).where({ credentialId: input.credentialId, counter: input.from })
      .patch({ counter: input.to, lastUsedAt: this.clock.now() });
    return n === 1;
  }

  /** The account's passkey rows, oldest first. */
  async rows(accountId: string, trx?: Knex.Transaction): Promise<PasskeyModel[]> {
    return PasskeyModel.query(trx ?? this.db.knex).where({ accountId }).orderBy([{ column: 'createdAt' }, { column: 'id' }]);
  }

  /** The account's passkey with this credential id, or `undefined` (also for another account's). */
  async findOwned(accountId: string, credentialId: string, trx?: Knex.Transaction): Promise<PasskeyModel | undefined> {
    return PasskeyModel.query(trx ?? this.db.knex).findOne({ accountId, credentialId });
  }

  /** The account's passkeys as its owner sees them, oldest first. */
  async list(accountId: string): Promise<PasskeyDto[]> {
    const [rows, seal] = await Promise.all([this.rows(accountId), PersonalSealModel.query(this.db.knex).findById(accountId)]);
    return rows.map((r) => toDto(r, seal?.passkeyId));
  }
}

/** The client-facing shape of a passkey row. */
export function toDto(row: PasskeyModel, personalSealPasskeyId?: string): PasskeyDto {
  return {
    credentialId: row.credentialId,
    name: row.name,
    keyFingerprint: shortFingerprint(row.fingerprint),
    publicKey: Buffer.from(row.publicKey).toString('base64url'),
    transports: row.transports ?? [],
    deviceType: row.deviceType,
    backedUp: row.backedUp,
    personalSeal: row.id === personalSealPasskeyId,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt).toISOString() : null,
  };
}

function toStored(row: PasskeyModel): StoredPasskey {
  return {
    credentialId: row.credentialId,
    accountId: row.accountId,
    publicKey: new Uint8Array(Buffer.from(row.publicKey)),
    counter: Number(row.counter),
    transports: row.transports ?? [],
  };
}
