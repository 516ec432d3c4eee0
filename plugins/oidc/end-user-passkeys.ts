import { randomUUID } from 'node:crypto';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AerieError, coreRefs, inject, injectable, type Clock, type Database } from '../../core/index.ts';
import { clientDataChallenge } from '../accounts/api.ts';
import { oidcErrors } from './errors.ts';
import { refused } from './sign-in-failures.ts';

const PASSKEYS = 'oidc.passkeys';
const CHALLENGES = 'oidc.passkey_challenges';

/** A passkey ceremony's challenge is valid this long (seconds). */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;
/** Passkeys one end user may hold in one organization. */
export const MAX_PASSKEYS_PER_END_USER = 10;
/** ES256 only, as for accounts' passkeys. */
const ALGORITHMS = [-7];

/** The WebAuthn relying party of an app group's hosted login. */
export interface LoginRelyingParty {
  /** The app group's `passkeyRpId`, or Aerie's own RP ID. */
  rpId: string;
  rpName: string;
  /**
   * The origin the ceremony must come from: the login page's; for an SDK sign-in also the
   * application's (its redirect URI's origin, when that host is under the RP ID).
   */
  origin: string | string[];
}

/** Where a ceremony happens: one organization's sign-in (provider interaction) in one browser, or one SDK sign-in. */
export interface Ceremony {
  orgId: string;
  /** The provider interaction's uid, or `sdk:{id}` of an SDK sign-in. */
  interactionUid: string;
  rp: LoginRelyingParty;
}

interface PasskeyRow {
  id: string;
  endUserId: string;
  credentialId: string;
  publicKey: Buffer;
  counter: string | number;
  transports: string[];
}

/**
 * End users' passkeys on the hosted login, apart from Aerie accounts' passkeys: sign-in with a
 * discoverable credential (no address typed), and registration right after a sign-in proven another
 * way (an emailed code) in the same sign-in. User verification is required; ES256 only; the
 * signature counter must move forward; a challenge serves once, for its sign-in, for 5 minutes.
 * @see docs/api/signin.md "Passkeys"
 */
@injectable()
export class EndUserPasskeys {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Options for `navigator.credentials.get()` (discoverable credentials: no allow list). */
  async signInOptions(ceremony: Ceremony): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: ceremony.rp.rpId, userVerification: 'required', allowCredentials: [] });
    await this.remember(ceremony, 'signin', options.challenge);
    return options;
  }

  /**
   * Verifies an assertion for this sign-in.
   * @returns the end user the passkey belongs to
   * @throws 400 `PASSKEY_FAILED` (unknown credential, wrong challenge, origin or RP ID, no user
   *   verification, a counter that did not move forward, a bad signature), marked as a failed
   *   attempt ({@link refused}): `unknown_account` for a credential this organization and RP ID do
   *   not know, else `passkey_rejected` with the credential's end user
   */
  async signIn(ceremony: Ceremony, response: AuthenticationResponseJSON): Promise<string> {
    const stored = (await this.db.knex(PASSKEYS).where({ orgId: ceremony.orgId, rpId: ceremony.rp.rpId, credentialId: String(response.id) })
      .first('id', 'endUserId', 'credentialId', 'publicKey', 'counter', 'transports')) as PasskeyRow | undefined;
    if (!stored) throw refused(oidcErrors.passkeyFailed(), { reason: 'unknown_account' });
    return this.verifyAssertion(ceremony, response, stored).catch((err: unknown) => {
      throw err instanceof AerieError && err.code === 'PASSKEY_FAILED' ? refused(err, { reason: 'passkey_rejected', endUserId: stored.endUserId }) : err;
    });
  }

  /** Checks the assertion against the stored passkey and moves its counter. @returns its end user @throws 400 `PASSKEY_FAILED` */
  private verifyAssertion(ceremony: Ceremony, response: AuthenticationResponseJSON, stored: PasskeyRow): Promise<string> {
    return this.db.transaction(async (trx) => {
      const challenge = await this.spend(trx, ceremony, 'signin', clientDataChallenge(response.response?.clientDataJSON));
      let newCounter: number;
      try {
        const verification = await verifyAuthenticationResponse({
          response, expectedChallenge: challenge, expectedOrigin: ceremony.rp.origin, expectedRPID: ceremony.rp.rpId, requireUserVerification: true,
          credential: { id: stored.credentialId, publicKey: new Uint8Array(stored.publicKey), counter: Number(stored.counter), transports: stored.transports as never },
        });
        if (!verification.verified) throw new Error('not verified');
        newCounter = verification.authenticationInfo.newCounter;
      } catch {
        throw oidcErrors.passkeyFailed();
      }
      const moved = await trx(PASSKEYS).where({ id: stored.id, counter: stored.counter }).update({ counter: newCounter, lastUsedAt: this.clock.now() });
      if (moved !== 1) throw oidcErrors.passkeyFailed();
      return stored.endUserId;
    });
  }

  /** Options for `navigator.credentials.create()` for an end user who has just signed in. */
  async registrationOptions(ceremony: Ceremony, endUser: { id: string; email: string; displayName: string | null }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = (await this.db.knex(PASSKEYS).where({ orgId: ceremony.orgId, endUserId: endUser.id, rpId: ceremony.rp.rpId }).select('credentialId', 'transports')) as
      Array<{ credentialId: string; transports: string[] }>;
    if (existing.length >= MAX_PASSKEYS_PER_END_USER) throw oidcErrors.passkeyLimit(MAX_PASSKEYS_PER_END_USER);
    const options = await generateRegistrationOptions({
      rpName: ceremony.rp.rpName, rpID: ceremony.rp.rpId, userName: endUser.email, userDisplayName: endUser.displayName ?? endUser.email,
      userID: new Uint8Array(Buffer.from(endUser.id.replace(/-/g, ''), 'hex')), attestationType: 'none', supportedAlgorithmIDs: ALGORITHMS,
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports as never })),
    });
    await this.remember(ceremony, 'register', options.challenge);
    return options;
  }

  /**
   * Verifies an attestation and stores the passkey for the end user.
   * @throws 400 `PASSKEY_FAILED`; 409 `PASSKEY_LIMIT`
   */
  async register(ceremony: Ceremony, endUserId: string, response: RegistrationResponseJSON): Promise<void> {
    await this.db.transaction(async (trx) => {
      const challenge = await this.spend(trx, ceremony, 'register', clientDataChallenge(response.response?.clientDataJSON));
      let info;
      try {
        const verification = await verifyRegistrationResponse({
          response, expectedChallenge: challenge, expectedOrigin: ceremony.rp.origin, expectedRPID: ceremony.rp.rpId,
          requireUserPresence: true, requireUserVerification: true, supportedAlgorithmIDs: ALGORITHMS,
        });
        if (!verification.verified) throw new Error('not verified');
        info = verification.registrationInfo;
      } catch {
        throw oidcErrors.passkeyFailed();
      }
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`oidc.passkeys:${ceremony.orgId}:${endUserId}`]);
      const [{ count }] = await trx(PASSKEYS).where({ orgId: ceremony.orgId, endUserId }).count({ count: '*' });
      if (Number(count) >= MAX_PASSKEYS_PER_END_USER) throw oidcErrors.passkeyLimit(MAX_PASSKEYS_PER_END_USER);
      const inserted = await trx(PASSKEYS).insert({
        id: randomUUID(), orgId: ceremony.orgId, endUserId, rpId: ceremony.rp.rpId, credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey), counter: info.credential.counter, transports: JSON.stringify(info.credential.transports ?? []),
        createdAt: this.clock.now(),
      }).onConflict(['orgId', 'rpId', 'credentialId']).ignore().returning('id');
      if (inserted.length === 0) throw oidcErrors.passkeyFailed();
    });
  }

  /** Deletes challenges whose time is up. @returns how many */
  async purge(): Promise<number> {
    return this.db.knex(CHALLENGES).where('expiresAt', '<', this.clock.now()).delete();
  }

  private async remember(ceremony: Ceremony, purpose: 'signin' | 'register', challenge: string): Promise<void> {
    await this.db.knex(CHALLENGES).insert({
      id: randomUUID(), orgId: ceremony.orgId, interactionUid: ceremony.interactionUid, purpose, challenge,
      expiresAt: new Date(this.clock.now().getTime() + PASSKEY_CHALLENGE_TTL_SECONDS * 1000),
    });
  }

  /** Spends the live challenge of this sign-in the client answered. @throws 400 `PASSKEY_FAILED` */
  private async spend(trx: Parameters<Parameters<Database['transaction']>[0]>[0], ceremony: Ceremony, purpose: string, challenge: string | undefined): Promise<string> {
    if (!challenge) throw oidcErrors.passkeyFailed();
    const spent = await trx(CHALLENGES)
      .where({ orgId: ceremony.orgId, interactionUid: ceremony.interactionUid, purpose, challenge }).whereNull('usedAt').where('expiresAt', '>', this.clock.now())
      .update({ usedAt: this.clock.now() });
    if (spent !== 1) throw oidcErrors.passkeyFailed();
    return challenge;
  }
}
