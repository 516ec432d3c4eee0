import type { Knex } from 'knex';

/**
 * A registered passkey as the seal service needs it: the credential id (base64url, as in
 * `AuthenticationResponseJSON.id`), the COSE_Key bytes registered for it, the last signature
 * counter seen and the transports the browser reported.
 * @see docs/api/accounts.md (passkey step-up)
 */
export interface StoredPasskey {
  credentialId: string;
  accountId: string;
  /** COSE_Key bytes as returned by registration (`registrationInfo.credential.publicKey`). */
  publicKey: Uint8Array;
  /** Last accepted signature counter (uint32; 0 for authenticators that do not count). */
  counter: number;
  transports: string[];
}

/**
 * Where `core.seals` reads credentials from: contributed by the accounts plugin through
 * `coreExtensions.passkeys` (the last contribution wins). The kernel resolves it per call, so the
 * seal service exists before any plugin initialises.
 * @see docs/seals.md
 */
export interface PasskeyStore {
  /** The account's passkeys, oldest first (empty when it has none). */
  listForAccount(accountId: string): Promise<StoredPasskey[]>;
  /** One passkey by credential id, whoever owns it; `undefined` when unknown. */
  find(credentialId: string): Promise<StoredPasskey | undefined>;
  /**
   * Compare-and-set of the signature counter inside the caller's transaction: moves it from `from`
   * to `to` and stamps the last use. @returns false when the stored counter is no longer `from`
   * (a concurrent assertion won), so the caller rolls back.
   */
  advanceCounter(input: { credentialId: string; from: number; to: number }, trx: Knex.Transaction): Promise<boolean>;
}
