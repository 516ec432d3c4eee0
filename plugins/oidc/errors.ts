import { aerieError, defineErrorCodes, notFound, permissionDenied, rateLimited, validationFailed } from '../../core/index.ts';

/** The oidc plugin's own error codes (documented in docs/api/signin.md). */
export const oidcErrorCodes = defineErrorCodes('oidc', {
  SIGN_IN_NOT_FOUND: { status: 404, description: 'no sign-in in progress for this application in this browser (it expired after 10 minutes, or was finished); start again from the application' },
  LOGIN_METHOD_OFF: { status: 403, description: 'the app group does not offer this sign-in method (`method`)' },
  LOGIN_CODE_INVALID: { status: 400, description: 'the code is wrong (`attemptsRemaining` for this code)' },
  PASSKEY_FAILED: { status: 400, description: 'the passkey could not be verified for this sign-in (unknown to this application, wrong challenge, origin or RP ID, no user verification, a counter that went backwards, a bad signature)' },
  PASSKEY_LIMIT: { status: 409, description: 'the end user already has the most passkeys allowed (`limit`, 10)' },
  SIGN_IN_NOT_PROVEN: { status: 403, description: 'adding a passkey needs a sign-in proven another way (an emailed code) in this sign-in first' },
  CONSENT_REQUIRED: { status: 409, description: 'the first sign-in with an Aerie account to this app group needs `consent: true` (name and email are shared)' },
  AERIE_ACCOUNT_LOGIN_OFF: { status: 403, description: 'the app group does not offer sign-in with an Aerie account' },
  ACCOUNT_EMAIL_UNVERIFIED: { status: 403, description: 'only an Aerie account with a verified email may sign in to applications with it' },
  LOGIN_CODE_EXPIRED: { status: 400, description: 'no live code for this sign-in and address: it expired, was used, was superseded, or had five wrong tries; request a new one' },
  SOCIAL_PROVIDER_UNSUPPORTED: { status: 400, description: 'a social provider Aerie cannot sign in with over OpenID Connect (`provider`: `github`, `apple`)' },
  SOCIAL_DISCOVERY_FAILED: { status: 400, description: "the social provider's issuer has no usable OpenID discovery document (`field: issuer`)" },
  SOCIAL_SIGN_IN_FAILED: { status: 401, description: 'the social provider did not prove a verified email for this sign-in (`reason`)' },
});

type OidcErrorCodes = typeof oidcErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends OidcErrorCodes {}
}

/** Errors of the oidc plugin. */
export const oidcErrors = {
  applicationNotFound: () => notFound('Application not found.'),
  organizationNotFound: () => notFound('Organization not found.'),
  signInNotFound: () => aerieError('SIGN_IN_NOT_FOUND', 'No sign-in is in progress here. Start again from the application.'),
  methodOff: (method: string) => aerieError('LOGIN_METHOD_OFF', `This application does not offer ${method} sign-in.`, { method }),
  codeInvalid: (attemptsRemaining: number) => aerieError('LOGIN_CODE_INVALID', 'That code is not right.', { attemptsRemaining }),
  codeExpired: () => aerieError('LOGIN_CODE_EXPIRED', 'This code is no longer valid. Request a new one.'),
  passkeyFailed: () => aerieError('PASSKEY_FAILED', 'The passkey could not be verified. Try again, or sign in with an emailed code.'),
  passkeyLimit: (limit: number) => aerieError('PASSKEY_LIMIT', `At most ${limit} passkeys.`, { limit }),
  notProven: () => aerieError('SIGN_IN_NOT_PROVEN', 'Sign in with an emailed code first, then add a passkey.'),
  consentRequired: () => aerieError('CONSENT_REQUIRED', 'Agree to share your name and email with this application first.'),
  aerieAccountOff: () => aerieError('AERIE_ACCOUNT_LOGIN_OFF', 'This application does not offer sign-in with an Aerie account.'),
  emailUnverified: () => aerieError('ACCOUNT_EMAIL_UNVERIFIED', 'Verify your email first: only verified accounts may sign in to applications.'),
  endUserRefused: () => permissionDenied(undefined, 'Your access to this application is suspended.'),
  /** The owner gate: an end user whose address only a tenant's social connection vouched for speaks for no Aerie account. */
  emailNotProven: () => aerieError('UNAUTHORIZED', 'The end user\'s address was not proven by Aerie (only by a social connection): sign in with an emailed code or an Aerie account first.', { reason: 'email_not_proven' }),
  sdkInvalid: (message: string, field: string) => validationFailed(message, field),
  socialUnsupported: (provider: string) => aerieError('SOCIAL_PROVIDER_UNSUPPORTED', `${provider} does not sign in over OpenID Connect; Aerie cannot offer it yet.`, { provider }),
  socialDiscovery: () => aerieError('SOCIAL_DISCOVERY_FAILED', "The issuer's OpenID discovery document could not be read.", { field: 'issuer' }),
  socialIssuerRequired: () => validationFailed('issuer is required for this provider.', 'issuer'),
  socialConnectionNotFound: () => notFound('No such social connection.'),
  socialFailed: (reason: string) => aerieError('SOCIAL_SIGN_IN_FAILED', 'The sign-in with the social provider failed. Start again.', { reason }),
  tooManyCodes: (retryAfterSeconds: number) => rateLimited(retryAfterSeconds, 'RATE_LIMITED', 'Too many codes requested for this address. Try again later.'),
};
