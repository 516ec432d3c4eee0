import type { SealBinding, SealField } from './binding.ts';
import type { SealProof } from './seal-proof.ts';
import type { PurposeRegistry } from './purpose-registry.ts';
import type { HandlerInput } from '../http/route.ts';

/** Person-typed inputs: `[{key, value}]` as the spec sends them, or a `{key: value}` map. @see docs/seals.md */
export type SealInputs = readonly SealField[] | Record<string, string>;

/** A step-up seal that passed verification. */
export interface SealVerification {
  credentialId: string;
  /** The account whose passkey signed. */
  userId: string;
  /** Evidence for the audit record, verifiable by third parties (docs/seals.md). */
  proof: SealProof;
}

/** `POST /api/passkey/stepup/options` answer. @see docs/api/keys.md */
export interface StepUpOptions {
  hasPasskey: boolean;
  /** WebAuthn `PublicKeyCredentialRequestOptionsJSON`, or null when the account has no passkey. */
  options: Record<string, unknown> | null;
  /**
   * What the challenge commits to: `challenge = SHA-256(canonical line of binding)`. Aerie returns it
   * for every purpose (plain purposes have no fields); absent when `hasPasskey` is false.
   * @see docs/seals.md
   */
  binding?: SealBinding;
}

/**
 * `core.seals`: passkey step-up bound to a purpose and a subject (and, for content-bound purposes,
 * to fields rebuilt from the database). Challenges are single-use and expire in 5 minutes.
 */
export interface SealService {
  /** Content-bound purposes: plugins register their field builders and allowed inputs here. */
  readonly purposes: PurposeRegistry;
  /**
   * Issues a single-use challenge for this account, purpose and subject (5 minutes).
   * @throws 400 (SealBindingError) for an invalid purpose, subject or inputs
   */
  issueOptions(input: { accountId: string; purpose: string; subject: string; inputs?: SealInputs }): Promise<StepUpOptions>;
  /**
   * The credential ids (base64url) of the account's passkeys, oldest first; empty when it has none.
   * Used where a rule needs "another passkey than the one that signed" (approvals' second device).
   */
  credentialIds(accountId: string): Promise<string[]>;
  /**
   * Verifies an assertion once for this account, purpose and subject.
   * @throws 401 `STEPUP_REQUIRED` (no assertion), 401 `STEPUP_FAILED` (other account, purpose or
   *   subject, replayed, expired, bad signature), 403 `seal_binding_mismatch` (changed content, or
   *   a seal that verifies over other content of the purpose's kind: see `PurposeDefinition.otherContent`).
   */
  verify(input: { accountId: string; purpose: string; subject: string; assertion: unknown; inputs?: Record<string, string> }): Promise<SealVerification>;
}

/**
 * A route's seal requirement. The kernel reads the assertion from `body[assertionField]` (a JSON
 * string or object), verifies it before the handler, puts the result in `input.seal` and marks the
 * request scope with `humanSeal` for audit.
 */
export interface RouteSeal<I = HandlerInput> {
  purpose: string;
  subject: (input: I) => string;
  /** `assertionResponseJson`, `SealAssertionJson` or `stepUpAssertion`, per the spec's route. */
  assertionField: string;
  /** Require the seal only when this answers true (e.g. a key ceiling above 300 s). */
  when?: (input: I) => boolean;
  /** Person-typed inputs sent with the action that the seal must have bound (`input.reason`). */
  inputs?: (input: I) => Record<string, string>;
}
