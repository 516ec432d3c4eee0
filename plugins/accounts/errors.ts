import { aerieError, defineErrorCodes, notFound, rateLimited } from '../../core/index.ts';

/** The accounts plugin's own error codes (documented in docs/api/accounts.md and docs/api/passkeys.md). */
export const accountsErrorCodes = defineErrorCodes('accounts', {
  INVALID_CODE: { status: 400, description: 'the email code is wrong; one attempt is used up (`attemptsRemaining`)' },
  CODE_EXPIRED: { status: 400, description: 'no usable email code: expired, used, replaced or never sent' },
  TOO_MANY_ATTEMPTS: { status: 429, description: 'too many wrong codes for this address; retry after `retryAfterSeconds`' },
  PASSKEY_REGISTRATION_FAILED: { status: 400, description: 'the passkey registration ceremony did not verify (`reason`)' },
  PASSKEY_EXISTS: { status: 409, description: 'the passkey credential id is already registered' },
  PASSKEY_NOT_FOUND: { status: 404, description: "no passkey with this id on the caller's account" },
  PASSKEY_SIGNIN_FAILED: { status: 401, description: 'the passkey sign-in did not verify' },
  CSRF_FAILED: { status: 403, description: 'a cookie-session write without its CSRF token or from a foreign origin (`reason`)' },
});

type AccountsErrorCodes = typeof accountsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends AccountsErrorCodes {}
}

/** Errors of the accounts plugin. */
export const accountsErrors = {
  invalidCode: (attemptsRemaining: number) => aerieError('INVALID_CODE', 'The code is not correct.', { attemptsRemaining }),
  codeExpired: () =>
    aerieError('CODE_EXPIRED', 'No valid code for this email: it expired, was used, or was never sent. Request a new one.'),
  tooManyAttempts: (retryAfterSeconds: number) => rateLimited(retryAfterSeconds, 'TOO_MANY_ATTEMPTS', 'Too many wrong codes. Request a new code, or wait.'),
  tooManyCodes: (retryAfterSeconds: number) => rateLimited(retryAfterSeconds, 'RATE_LIMITED', 'Too many codes requested for this email. Try again later.'),
  /** The registration ceremony did not verify (challenge, origin, RP ID, flags, algorithm or attestation). */
  passkeyRegistrationFailed: (reason: string) =>
    aerieError('PASSKEY_REGISTRATION_FAILED', 'The passkey could not be registered. Start again.', { reason }),
  passkeyExists: () => aerieError('PASSKEY_EXISTS', 'This passkey is already registered.'),
  passkeyNotFound: () => aerieError('PASSKEY_NOT_FOUND', 'No passkey with this id on your account.'),
  /** One answer for every failed passkey sign-in, so it tells nothing about accounts or keys. */
  passkeySignInFailed: () => aerieError('PASSKEY_SIGNIN_FAILED', 'The passkey sign-in did not verify. Start again.'),
  /** A cookie-authenticated write without the session's `X-CSRF-Token`, or from a foreign `Origin`. */
  csrfFailed: (reason: 'token' | 'origin') =>
    aerieError('CSRF_FAILED', reason === 'token'
      ? 'Send the X-CSRF-Token header of this session with every cookie-authenticated write.'
      : 'Requests from this origin may not use the session cookie.', { reason }),
  /** The signed-in account is gone (deleted while its session lived). */
  accountNotFound: () => notFound('Account not found.'),
};
