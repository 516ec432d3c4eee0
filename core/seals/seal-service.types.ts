import type { SealBinding } from './binding.ts';
import type { SealProof } from './seal-proof.ts';
import type { HandlerInput } from '../http/route.ts';

/** A step-up seal that passed verification. */
export interface SealVerification {
  credentialId: string;
  /** The account whose passkey signed. */
  userId: string;
  /** Evidence for the audit record, verifiable by third parties (docs/seals.md). */
  proof: SealProof;
}

/** `POST /api/passkey/stepup/options` answer. @see spec 01 "Machine tokens" */
export interface StepUpOptions {
  hasPasskey: boolean;
  /** WebAuthn `PublicKeyCredentialRequestOptionsJSON`, or null when the account has no passkey. */
  options: Record<string, unknown> | null;
  /** Present for content-bound purposes (spec 02 "Approval rules"). */
  binding?: SealBinding;
}

/**
 * `core.seals`: passkey step-up bound to a purpose and a subject (and, for content-bound purposes,
 * to fields rebuilt from the database). Challenges are single-use and expire in 5 minutes.
 */
export interface SealService {
  issueOptions(input: { accountId: string; purpose: string; subject: string; inputs?: Record<string, string> }): Promise<StepUpOptions>;
  /**
   * Verifies an assertion once for this account, purpose and subject.
   * @throws 401 `STEPUP_REQUIRED` (no assertion), 401 `STEPUP_FAILED` (other account, purpose or
   *   subject, replayed, expired, bad signature), 403 `seal_binding_mismatch`.
   */
  verify(input: { accountId: string; purpose: string; subject: string; assertion: unknown; inputs?: Record<string, string> }): Promise<SealVerification>;
}

/**
 * A route's seal requirement. The kernel reads the assertion from `body[assertionField]` (a JSON
 * string or object), verifies it before the handler, puts the result in `input.seal` and marks the
 * request scope with `humanSeal` for audit.
 */
export interface RouteSeal {
  purpose: string;
  subject: (input: HandlerInput) => string;
  /** `assertionResponseJson`, `SealAssertionJson` or `stepUpAssertion`, per the spec's route. */
  assertionField: string;
  /** Require the seal only when this answers true (e.g. a key ceiling above 300 s). */
  when?: (input: HandlerInput) => boolean;
  /** Person-typed inputs sent with the action that the seal must have bound (`input.reason`). */
  inputs?: (input: HandlerInput) => Record<string, string>;
}
