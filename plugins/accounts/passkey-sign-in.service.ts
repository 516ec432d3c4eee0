import type { Logger } from 'pino';
import {
  generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON, type PublicKeyCredentialRequestOptionsJSON,
  type VerifiedAuthenticationResponse,
} from '@simplewebauthn/server';
import { coreRefs, inject, injectable, type AerieConfig, type Database, type EventBus } from '../../core/index.ts';
import { accountsRefs } from './api.ts';
import type { AccountsService } from './accounts.service.ts';
import type { SessionsService } from './sessions.service.ts';
import type { AccountModel } from './models/account.model.ts';
import { PasskeyModel } from './models/passkey.model.ts';
import { internalRefs } from './internal-refs.ts';
import type { PasskeysRepository } from './passkeys.repository.ts';
import type { WebauthnChallengesService } from './webauthn-challenges.service.ts';
import { ACTIVITY, type ActivityLogService, type RequestMeta } from './activity-log.service.ts';
import { clientDataChallenge, relyingParty, userHandleOf, WEBAUTHN_CHALLENGE_TTL_SECONDS } from './relying-party.ts';
import { accountsErrors } from './errors.ts';

/** A session opened by a passkey; `csrfToken` only for cookie sessions. */
export interface PasskeySignInResult {
  account: AccountModel;
  session: { token: string; expiresAt: Date; absoluteTtlSeconds: number; csrfToken?: string };
}

/**
 * Passkey sign-in with discoverable credentials: options with a single-use challenge (no account
 * named, so nothing about accounts leaks), then verification — `verified` is checked before the
 * challenge is consumed, the counter advanced (compare-and-set) and the session opened, all in one
 * transaction; any failure is 401 `PASSKEY_SIGNIN_FAILED` and changes nothing.
 * @see docs/api/accounts.md
 */
@injectable()
export class PasskeySignInService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.events.id) private readonly events: EventBus,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(accountsRefs.accounts.id) private readonly accounts: AccountsService,
    @inject(accountsRefs.sessions.id) private readonly sessions: SessionsService,
    @inject(internalRefs.passkeys.id) private readonly passkeys: PasskeysRepository,
    @inject(internalRefs.webauthnChallenges.id) private readonly challenges: WebauthnChallengesService,
    @inject(internalRefs.activityLog.id) private readonly activity: ActivityLogService,
  ) {}

  /** Request options for a discoverable-credential sign-in (user verification required). */
  async options(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({
      rpID: relyingParty(this.config).rpId, userVerification: 'required', timeout: WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000,
    });
    await this.challenges.issue('authentication', null, options.challenge);
    return options;
  }

  /**
   * Verifies the assertion and opens a session (a cookie session with a CSRF token when `cookie`).
   * @throws 401 `PASSKEY_SIGNIN_FAILED`
   */
  async signIn(response: AuthenticationResponseJSON, opts: { cookie: boolean }, meta: RequestMeta): Promise<PasskeySignInResult> {
    const fail = (why: string) => {
      this.logger.info({ why }, 'passkey sign-in refused');
      return accountsErrors.passkeySignInFailed();
    };
    const found = await this.challenges.find('authentication', clientDataChallenge(response?.response?.clientDataJSON), null);
    if (typeof found === 'string') throw fail(found);
    const stored = typeof response?.id === 'string' ? await PasskeyModel.query(this.db.knex).findOne({ credentialId: response.id }) : undefined;
    if (!stored) throw fail('unknown credential');
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== Buffer.from(userHandleOf(stored.accountId)).toString('base64url')) throw fail('user handle');
    const rp = relyingParty(this.config);
    let verification: VerifiedAuthenticationResponse;
    try {
      verification = await verifyAuthenticationResponse({
        response, expectedChallenge: found.challenge, expectedOrigin: rp.origins, expectedRPID: rp.rpId, requireUserVerification: true,
        credential: { id: stored.credentialId, publicKey: new Uint8Array(Buffer.from(stored.publicKey)), counter: Number(stored.counter), transports: stored.transports as never },
      });
    } catch (err) {
      throw fail((err as Error).message);
    }
    if (!verification.verified) throw fail('not verified');
    const session = await this.db.transaction(async (trx) => {
      if (!(await this.challenges.consume(found.id, trx))) throw fail('challenge used');
      const moved = await this.passkeys.advanceCounter({ credentialId: stored.credentialId, from: Number(stored.counter), to: verification.authenticationInfo.newCounter }, trx);
      if (!moved) throw fail('counter raced');
      const opened = await this.sessions.create(stored.accountId, { ...meta, csrf: opts.cookie }, trx);
      await this.activity.record(trx, {
        accountId: stored.accountId, eventType: ACTIVITY.login, method: 'passkey', key: { credentialId: stored.credentialId, fingerprint: stored.fingerprint }, ...meta,
      });
      return opened;
    });
    const account = await this.accounts.findById(stored.accountId);
    if (!account) throw fail('account gone');
    this.events.emit({ type: 'account.signed_in', payload: { accountId: account.id, method: 'passkey' } });
    return { account, session };
  }
}
