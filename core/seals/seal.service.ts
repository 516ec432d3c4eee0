/**
 * `core.seals`: passkey step-up seals bound to a purpose and a subject.
 *
 * Enforces (docs/api/accounts.md, docs/api/errors.md; docs/seals.md):
 * - every challenge is SHA-256 of a canonical line (`aerie-stepup-v1|nonce|purpose|subject|fields…`),
 *   ≥ 128 bits of fresh nonce, stored single-use for 5 minutes and bound to one account;
 * - an assertion is accepted once, only for that account, purpose and subject, from one of the
 *   account's passkeys, with a valid ES256 signature, an allowed origin and RP ID, the UP and UV
 *   flags set and a counter that moved forward — otherwise 401 `STEPUP_FAILED` and nothing changes;
 * - content-bound purposes rebuild their fields from the database at verification: any difference
 *   is 403 `seal_binding_mismatch`; typed inputs must equal the values sent with the action;
 * - a seal for another subject is 401 `other_subject`, unless the purpose says the two subjects name
 *   content of one kind (`otherContent`, e.g. two approval instances): then a seal that verifies is
 *   403 `seal_binding_mismatch` (the presented subject's content rebuilt and compared);
 * - `verified` is checked before the challenge is consumed and the counter advanced (one transaction).
 */
import { randomUUID, randomBytes as nodeRandomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON, type VerifiedAuthenticationResponse,
} from '@simplewebauthn/server';
import { AerieError, aerieError, stepUpRequired } from '../errors.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import {
  assertBindingMatches, assertPurposeName, bindingChallenge, buildBinding, canonicalLine, parseCanonicalLine, type SealBinding, type SealField,
} from './binding.ts';
import { assertInputMatches, PurposeRegistry } from './purpose-registry.ts';
import { makeSealProof } from './seal-proof.ts';
import { SealChallengeStore } from './seal-challenge-store.ts';
import type { PasskeyStore, StoredPasskey } from './passkey-store.types.ts';
import type { SealInputs, SealService, SealVerification, StepUpOptions } from './seal-service.types.ts';

/** A step-up challenge is valid this long (seconds). @see docs/seals.md */
export const SEAL_CHALLENGE_TTL_SECONDS = 300;

/** What a purpose's field builder receives as `context` from the seal service. */
export interface SealPurposeContext {
  /** The account asking for (or presenting) the seal. */
  accountId: string;
}

/** Machine-readable `reason` of a 401 `STEPUP_FAILED`. */
export type StepUpFailure =
  | 'bad_assertion' | 'unknown_challenge' | 'other_account' | 'other_purpose' | 'other_subject'
  | 'replayed' | 'expired' | 'unknown_credential' | 'verification_failed';

const MESSAGES: Record<StepUpFailure, string> = {
  bad_assertion: 'The passkey seal is not a WebAuthn assertion.',
  unknown_challenge: 'The passkey seal answers no challenge issued here.',
  other_account: 'The passkey seal was issued to another account.',
  other_purpose: 'The passkey seal is bound to another purpose.',
  other_subject: 'The passkey seal is bound to another subject.',
  replayed: 'The passkey seal was already used.',
  expired: 'The passkey seal expired; ask for a new one.',
  unknown_credential: 'The passkey does not belong to the signed-in account.',
  verification_failed: 'The passkey seal did not verify.',
};

/**
 * 401 `STEPUP_FAILED` with a `reason`. @see docs/api/errors.md
 * @param reason - which check failed.
 */
export const stepUpFailed = (reason: StepUpFailure) => aerieError('STEPUP_FAILED', MESSAGES[reason], { reason });

/** Dependencies of {@link KernelSealService}; the passkey store is looked up per call. */
export interface SealServiceDeps {
  db: Database;
  clock: Clock;
  webauthn: { rpId: string; origins: string[] };
  passkeys: () => PasskeyStore | undefined;
  logger?: Logger;
  randomBytes?: (size: number) => Uint8Array;
}

/**
 * The kernel's {@link SealService}. Plugins register content-bound purposes on `purposes`;
 * purposes nobody registered are plain (nonce, purpose and subject only, no inputs).
 * @example seals.purposes.register({ purpose: 'approval.stamp', allowedInputs: ['input.reason'], buildFields })
 */
export class KernelSealService implements SealService {
  readonly purposes = new PurposeRegistry();
  readonly #challenges: SealChallengeStore;

  constructor(private readonly deps: SealServiceDeps) {
    this.#challenges = new SealChallengeStore(deps.db.knex);
  }

  /**
   * Issues step-up options: `{hasPasskey: false, options: null}` for an account without passkeys,
   * otherwise WebAuthn request options whose challenge is SHA-256 of the binding's canonical line.
   * @throws 400 `invalid_purpose`, `invalid_subject`, `duplicate_input`, … (SealBindingError)
   */
  async issueOptions(input: { accountId: string; purpose: string; subject: string; inputs?: SealInputs }): Promise<StepUpOptions> {
    assertPurposeName(input.purpose);
    const credentials = (await this.deps.passkeys()?.listForAccount(input.accountId)) ?? [];
    const binding = await this.#bind(input.accountId, input.purpose, input.subject, toFields(input.inputs));
    if (credentials.length === 0) return { hasPasskey: false, options: null };
    const canonical = canonicalLine(binding);
    const options = await generateAuthenticationOptions({
      rpID: this.deps.webauthn.rpId,
      allowCredentials: credentials.map((c) => ({ id: c.credentialId, transports: c.transports })),
      challenge: bindingChallenge(canonical),
      userVerification: 'required',
      timeout: SEAL_CHALLENGE_TTL_SECONDS * 1000,
    });
    const now = this.deps.clock.now();
    await this.#challenges.insert({
      id: randomUUID(), accountId: input.accountId, purpose: input.purpose, subject: input.subject, challenge: options.challenge, canonical,
      binding: { nonce: binding.nonce, fields: binding.fields }, inputs: this.purposes.normalizeInputs(input.purpose, toFields(input.inputs)),
      createdAt: now, expiresAt: new Date(now.getTime() + SEAL_CHALLENGE_TTL_SECONDS * 1000),
    });
    return { hasPasskey: true, options: options as unknown as Record<string, unknown>, binding };
  }

  /** The account's passkey credential ids, oldest first. */
  async credentialIds(accountId: string): Promise<string[]> {
    return ((await this.deps.passkeys()?.listForAccount(accountId)) ?? []).map((c) => c.credentialId);
  }

  /**
   * Verifies an assertion once. Checks, in order: readable assertion, known challenge, same
   * account, purpose and subject, unused, unexpired, the account's credential, WebAuthn
   * verification (signature, origin, RP ID, UP and UV, counter), content binding (rebuilt for the
   * presented subject, which differs from the signed one only when the purpose's `otherContent`
   * allows it), typed inputs;
   * then consumes the challenge and advances the counter in one transaction.
   * @throws 401 `STEPUP_REQUIRED` (no assertion), 401 `STEPUP_FAILED` with `reason`, 403 `seal_binding_mismatch`
   */
  async verify(input: { accountId: string; purpose: string; subject: string; assertion: unknown; inputs?: Record<string, string> }): Promise<SealVerification> {
    if (input.assertion === undefined || input.assertion === null || input.assertion === '') {
      throw stepUpRequired(input.purpose);
    }
    const response = parseAssertion(input.assertion);
    const row = await this.#challenges.findByChallenge(clientDataChallenge(response));
    if (!row) throw this.#fail('unknown_challenge', input);
    if (row.accountId !== input.accountId) throw this.#fail('other_account', input);
    if (row.purpose !== input.purpose) throw this.#fail('other_purpose', input);
    // A seal over other content of the purpose's kind (another instance) goes on to be verified and
    // compared, so a genuine seal for the wrong document is a binding mismatch, not a bad seal.
    if (row.subject !== input.subject && !this.purposes.get(row.purpose)?.otherContent?.(row.subject, input.subject)) {
      throw this.#fail('other_subject', input);
    }
    if (row.consumedAt) throw this.#fail('replayed', input);
    if (row.expiresAt.getTime() <= this.deps.clock.now().getTime()) throw this.#fail('expired', input);
    const store = this.deps.passkeys();
    const credential = await store?.find(response.id);
    if (!store || !credential || credential.accountId !== input.accountId) throw this.#fail('unknown_credential', input);

    const result = await this.#webauthn(response, row.challenge, credential);
    if (!result?.verified) throw this.#fail('verification_failed', input);

    const signed = parseCanonicalLine(row.canonical);
    assertBindingMatches(await this.#bind(input.accountId, row.purpose, input.subject, row.inputs, row.binding.nonce), signed);
    const allowed = this.purposes.get(row.purpose)?.allowedInputs ?? [];
    for (const [key, value] of Object.entries(input.inputs ?? {})) if (allowed.includes(key)) assertInputMatches(signed, key, value);

    await this.deps.db.transaction(async (trx) => {
      if (!(await this.#challenges.consume(row.id, this.deps.clock.now(), trx))) throw this.#fail('replayed', input);
      const moved = await store.advanceCounter({ credentialId: credential.credentialId, from: credential.counter, to: result.authenticationInfo.newCounter }, trx);
      if (!moved) throw this.#fail('replayed', input);
    });
    return { credentialId: credential.credentialId, userId: input.accountId, proof: makeSealProof(row.canonical, response) };
  }

  async #bind(accountId: string, purpose: string, subject: string, inputs: readonly SealField[], nonce?: string): Promise<SealBinding> {
    const context: SealPurposeContext = { accountId };
    if (this.purposes.get(purpose)) return this.purposes.buildBinding({ purpose, subject, inputs, context, nonce }, this.deps.randomBytes);
    return buildBinding({ purpose, subject, fields: [], nonce }, this.deps.randomBytes ?? nodeRandomBytes);
  }

  async #webauthn(response: AuthenticationResponseJSON, challenge: string, credential: StoredPasskey): Promise<VerifiedAuthenticationResponse | undefined> {
    try {
      return await verifyAuthenticationResponse({
        response, expectedChallenge: challenge, expectedOrigin: this.deps.webauthn.origins, expectedRPID: this.deps.webauthn.rpId,
        credential: { id: credential.credentialId, publicKey: new Uint8Array(credential.publicKey), counter: credential.counter, transports: credential.transports as never },
        requireUserVerification: true,
      });
    } catch (err) {
      this.deps.logger?.debug({ err: (err as Error).message }, 'step-up assertion refused');
      return undefined;
    }
  }

  #fail(reason: StepUpFailure, input: { accountId: string; purpose: string }): AerieError {
    this.deps.logger?.info({ reason, accountId: input.accountId, purpose: input.purpose }, 'step-up seal refused');
    return stepUpFailed(reason);
  }
}

/** Accepts `[{key, value}]` (the spec's shape) or a `{key: value}` map. */
function toFields(inputs: SealInputs | undefined): SealField[] {
  if (!inputs) return [];
  return Array.isArray(inputs) ? [...inputs] : Object.entries(inputs).map(([key, value]) => ({ key, value }));
}

function parseAssertion(raw: unknown): AuthenticationResponseJSON {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw stepUpFailed('bad_assertion');
    }
  }
  const r = value as AuthenticationResponseJSON;
  const strings = [r?.id, r?.response?.clientDataJSON, r?.response?.authenticatorData, r?.response?.signature];
  if (typeof value !== 'object' || !strings.every((s) => typeof s === 'string' && s.length > 0)) throw stepUpFailed('bad_assertion');
  return r;
}

function clientDataChallenge(response: AuthenticationResponseJSON): string {
  try {
    const challenge = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')).challenge;
    if (typeof challenge === 'string' && challenge.length > 0) return challenge;
  } catch {
    /* falls through */
  }
  throw stepUpFailed('bad_assertion');
}
