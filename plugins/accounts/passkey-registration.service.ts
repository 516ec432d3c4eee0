import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  generateRegistrationOptions, verifyRegistrationResponse, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON,
  type VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { coreRefs, inject, injectable, type AerieConfig, type Clock, type Database, type EventBus, type Mailer } from '../../core/index.ts';
import { accountsRefs } from './api.ts';
import type { AccountsService } from './accounts.service.ts';
import { internalRefs } from './internal-refs.ts';
import { PasskeyModel } from './models/passkey.model.ts';
import { toDto, type PasskeyDto, type PasskeysRepository } from './passkeys.repository.ts';
import type { WebauthnChallengesService } from './webauthn-challenges.service.ts';
import { ACTIVITY, type ActivityLogService, type RequestMeta } from './activity-log.service.ts';
import { clientDataChallenge, relyingParty, SUPPORTED_ALGORITHMS, userHandleOf, WEBAUTHN_CHALLENGE_TTL_SECONDS } from './relying-party.ts';
import { sendPasskeySecurityMail } from './security-mail.ts';
import { accountsErrors } from './errors.ts';

/**
 * Adding and removing passkeys (@simplewebauthn/server): registration options bound to a
 * single-use challenge, verification (`verified` checked before anything is stored), the
 * `seal.lifecycle.registered` / `.revoked` activity rows in the same transaction, and the security
 * mail after commit.
 * @see docs/audit.md, docs/api/accounts.md
 */
@injectable()
export class PasskeyRegistrationService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(internalRefs.passkeys.id) private readonly passkeys: PasskeysRepository,
    @inject(internalRefs.webauthnChallenges.id) private readonly challenges: WebauthnChallengesService,
    @inject(internalRefs.activityLog.id) private readonly activity: ActivityLogService,
  ) {}

  /**
   * Registration options for the signed-in account: ES256 only, discoverable credential and user
   * verification required, the account's passkeys excluded; the challenge is stored for 5 minutes.
   * @throws 404 `NOT_FOUND` for an unknown account
   */
  async options(accountId: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw accountsErrors.accountNotFound();
    const rp = relyingParty(this.config);
    const existing = await this.passkeys.rows(accountId);
    const options = await generateRegistrationOptions({
      rpName: rp.rpName, rpID: rp.rpId, userName: account.email, userID: userHandleOf(accountId), userDisplayName: account.displayName ?? account.email,
      attestationType: 'none', supportedAlgorithmIDs: SUPPORTED_ALGORITHMS, timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    await this.challenges.issue('registration', accountId, options.challenge);
    return options;
  }

  /**
   * Verifies a registration response against this account's live challenge and stores the passkey.
   * @throws 400 `PASSKEY_REGISTRATION_FAILED` (`reason`: unknown_challenge, other_account, replayed,
   *   expired, verification_failed), 409 `PASSKEY_EXISTS`
   */
  async add(accountId: string, input: { response: RegistrationResponseJSON; name?: string }, meta: RequestMeta): Promise<PasskeyDto> {
    const found = await this.challenges.find('registration', clientDataChallenge(input.response?.response?.clientDataJSON), accountId);
    if (typeof found === 'string') throw accountsErrors.passkeyRegistrationFailed(found === 'unknown' ? 'unknown_challenge' : found);
    const rp = relyingParty(this.config);
    let verification: VerifiedRegistrationResponse;
    try {
      verification = await verifyRegistrationResponse({
        response: input.response, expectedChallenge: found.challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId,
        requireUserPresence: true, requireUserVerification: true, supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      });
    } catch (err) {
      this.logger.info({ err: (err as Error).message, accountId }, 'passkey registration refused');
      throw accountsErrors.passkeyRegistrationFailed('verification_failed');
    }
    if (!verification.verified) throw accountsErrors.passkeyRegistrationFailed('verification_failed');
    const info = verification.registrationInfo;
    const fingerprint = createHash('sha256').update(info.credential.publicKey).digest('hex');
    const now = this.clock.now();
    const row = await this.db.transaction(async (trx) => {
      if (!(await this.challenges.consume(found.id, trx))) throw accountsErrors.passkeyRegistrationFailed('replayed');
      if (await PasskeyModel.query(trx).findOne({ credentialId: info.credential.id })) throw accountsErrors.passkeyExists();
      const inserted = await PasskeyModel.query(trx).insertAndFetch({
        id: randomUUID(), accountId, credentialId: info.credential.id, publicKey: Buffer.from(info.credential.publicKey), fingerprint,
        counter: info.credential.counter, transports: info.credential.transports ?? input.response.response.transports ?? [],
        name: input.name?.trim() || null, aaguid: info.aaguid, deviceType: info.credentialDeviceType, backedUp: info.credentialBackedUp,
        createdAt: now, lastUsedAt: null,
      });
      await this.activity.record(trx, { accountId, eventType: ACTIVITY.passkeyRegistered, key: { credentialId: inserted.credentialId, fingerprint }, ...meta });
      return inserted;
    }).catch((err: { code?: string; nativeError?: { code?: string } }) => {
      if ((err.nativeError?.code ?? err.code) === '23505') throw accountsErrors.passkeyExists();
      throw err;
    });
    await this.#announce(accountId, 'added', row);
    return toDto(row);
  }

  /**
   * Removes one of the account's passkeys (its personal seal binding goes with it).
   * @throws 404 `PASSKEY_NOT_FOUND` (also for another account's passkey)
   */
  async remove(accountId: string, credentialId: string, meta: RequestMeta): Promise<void> {
    const row = await this.db.transaction(async (trx) => {
      const owned = await this.passkeys.findOwned(accountId, credentialId, trx);
      if (!owned) throw accountsErrors.passkeyNotFound();
      await PasskeyModel.query(trx).deleteById(owned.id);
      await this.activity.record(trx, { accountId, eventType: ACTIVITY.passkeyRevoked, key: { credentialId, fingerprint: owned.fingerprint }, ...meta });
      return owned;
    });
    await this.#announce(accountId, 'removed', row);
  }

  async #announce(accountId: string, change: 'added' | 'removed', row: PasskeyModel): Promise<void> {
    const type = change === 'added' ? ACTIVITY.passkeyRegistered : ACTIVITY.passkeyRevoked;
    this.events.emit({ type, payload: { accountId, keyId: row.credentialId, keyFingerprint: row.fingerprint.slice(0, 16) } });
    this.events.emit({ type: 'account.updated', payload: { accountId } });
    const account = await this.accounts.findById(accountId);
    if (!account) return;
    try {
      await sendPasskeySecurityMail(this.mail, {
        to: account.email, change, credentialId: row.credentialId, fingerprint: row.fingerprint, at: this.clock.now(),
        securityUrl: new URL('/account/security', this.config.baseUrl).toString(),
      });
    } catch (err) {
      this.logger.error({ err, accountId }, 'passkey security mail not sent');
    }
  }
}
