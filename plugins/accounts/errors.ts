import { AerieError, rateLimited } from '../../core/index.ts';

/** Error codes of the accounts plugin (documented in docs/api/accounts.md). */
export const accountsErrors = {
  invalidCode: (attemptsRemaining: number) =>
    new AerieError(400, 'INVALID_CODE', 'The code is not correct.', { attemptsRemaining }),
  codeExpired: () =>
    new AerieError(400, 'CODE_EXPIRED', 'No valid code for this email: it expired, was used, or was never sent. Request a new one.'),
  tooManyAttempts: (retryAfterSeconds: number) => rateLimited(retryAfterSeconds, 'TOO_MANY_ATTEMPTS', 'Too many wrong codes. Request a new code, or wait.'),
  tooManyCodes: (retryAfterSeconds: number) => rateLimited(retryAfterSeconds, 'RATE_LIMITED', 'Too many codes requested for this email. Try again later.'),
  /** The registration ceremony did not verify (challenge, origin, RP ID, flags, algorithm or attestation). */
  passkeyRegistrationFailed: (reason: string) =>
    new AerieError(400, 'PASSKEY_REGISTRATION_FAILED', 'The passkey could not be registered. Start again.', { reason }),
  passkeyExists: () => new AerieError(409, 'PASSKEY_EXISTS', 'This passkey is already registered.'),
  passkeyNotFound: () => new AerieError(404, 'PASSKEY_NOT_FOUND', 'No passkey with this id on your account.'),
  /** One answer for every failed passkey sign-in, so it tells nothing about accounts or keys. */
  passkeySignInFailed: () => new AerieError(401, 'PASSKEY_SIGNIN_FAILED', 'The passkey sign-in did not verify. Start again.'),
  /** A cookie-authenticated write without the session's `X-CSRF-Token`, or from a foreign `Origin`. */
  csrfFailed: (reason: 'token' | 'origin') =>
    new AerieError(403, 'CSRF_FAILED', reason === 'token'
      ? 'Send the X-CSRF-Token header of this session with every cookie-authenticated write.'
      : 'Requests from this origin may not use the session cookie.', { reason }),
};
