import { AerieError } from '../../core/index.ts';

/** Error codes of the accounts plugin (documented in docs/api/accounts.md). */
export const accountsErrors = {
  invalidCode: (attemptsRemaining: number) =>
    new AerieError(400, 'INVALID_CODE', 'The code is not correct.', { attemptsRemaining }),
  codeExpired: () =>
    new AerieError(400, 'CODE_EXPIRED', 'No valid code for this email: it expired, was used, or was never sent. Request a new one.'),
  tooManyAttempts: () =>
    new AerieError(429, 'TOO_MANY_ATTEMPTS', 'Too many wrong codes. Request a new code.'),
  tooManyCodes: (retryAfterSeconds: number) =>
    new AerieError(429, 'RATE_LIMITED', 'Too many codes requested for this email. Try again later.', { retryAfterSeconds }),
};
