import type { EndUserSignInService, SignInFailure, SignInFailureReason } from '../endusers/api.ts';

/** What an error thrown by a sign-in step says about the failed attempt. */
export interface Refusal {
  reason: SignInFailureReason;
  /** The end user the attempt was against, when the step knew one. */
  endUserId?: string;
  /** The address the step learned (an upstream provider's, an Aerie account's). */
  email?: string;
}

const refusals = new WeakMap<Error, Refusal>();

/**
 * Marks `error` as a failed sign-in attempt with `refusal`'s reason, for {@link recordingFailures}.
 * The error itself (status, code, body) is unchanged.
 * @returns `error`, to be thrown
 * @example throw refused(oidcErrors.passkeyFailed(), { reason: 'unknown_account' });
 */
export function refused<E extends Error>(error: E, refusal: Refusal): E {
  refusals.set(error, refusal);
  return error;
}

/**
 * Runs one step of a sign-in attempt; when it throws an error marked by {@link refused}, records the
 * attempt (`org.end_user.sign_in_failed`, in its own transaction, through `endusers.signIn`) and
 * throws the same error on. Unmarked errors (no sign-in in progress, a method that is off, a consent
 * still to give) are not attempts and pass through unrecorded.
 * @param attempt - what the caller knows of the attempt; the refusal's `reason`, `endUserId` and `email` complete it
 * @see docs/api/endusers.md "Sign-in events"
 */
export async function recordingFailures<T>(
  signIn: EndUserSignInService, orgId: string, attempt: Omit<SignInFailure, 'reason'>, step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const refusal = err instanceof Error ? refusals.get(err) : undefined;
    if (refusal) await signIn.signInFailed(orgId, { ...attempt, ...refusal, email: refusal.email ?? attempt.email });
    throw err;
  }
}
