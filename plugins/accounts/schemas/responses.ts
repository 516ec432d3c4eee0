import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Shared schema `accounts/Account`: an account as it is answered to its owner. @see docs/api/accounts.md */
export const account = {
  $id: 'accounts/Account',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'displayName', 'emailVerified', 'platformAdmin', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    displayName: NULLABLE_STRING,
    emailVerified: { type: 'boolean' },
    platformAdmin: { type: 'boolean' },
    federatedOrgId: { type: 'string', format: 'uuid', description: 'Only on an account an organization\'s identity provider or SCIM token made: that organization. Such an account signs in only through it.' },
    createdAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `accounts/Passkey`: one of the signed-in person's passkeys. @see docs/api/passkeys.md */
export const passkey = {
  $id: 'accounts/Passkey',
  type: 'object',
  additionalProperties: false,
  required: ['credentialId', 'name', 'keyFingerprint', 'publicKey', 'transports', 'deviceType', 'backedUp', 'personalSeal', 'createdAt', 'lastUsedAt'],
  properties: {
    credentialId: { type: 'string' },
    name: NULLABLE_STRING,
    keyFingerprint: { type: 'string', description: 'First 16 hex characters of SHA-256 over the COSE public key.' },
    publicKey: { type: 'string', description: 'COSE_Key bytes, base64url.' },
    transports: { type: 'array', items: { type: 'string' } },
    deviceType: NULLABLE_STRING,
    backedUp: { type: 'boolean' },
    personalSeal: { type: 'boolean' },
    createdAt: DATE_TIME,
    lastUsedAt: NULLABLE_DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `accounts/PersonalSeal`: the passkey bound as the account's personal seal. */
export const personalSeal = {
  $id: 'accounts/PersonalSeal',
  type: 'object',
  additionalProperties: false,
  required: ['credentialId', 'keyFingerprint', 'boundAt'],
  properties: { credentialId: { type: 'string' }, keyFingerprint: { type: 'string' }, boundAt: DATE_TIME },
} as const satisfies RouteSchema;

/** Shared schema `accounts/WebAuthnOptions`: WebAuthn creation or request options (JSON, base64url buffers). */
export const webAuthnOptions = {
  $id: 'accounts/WebAuthnOptions',
  type: 'object',
  required: ['challenge'],
  properties: { challenge: { type: 'string' }, rpId: { type: 'string' }, timeout: { type: 'integer' }, userVerification: { type: 'string' } },
} as const satisfies RouteSchema;

/** `accounts/options.response`: `{options}` for passkey registration or sign-in. */
export const optionsResponse = {
  $id: 'accounts/options.response',
  type: 'object',
  additionalProperties: false,
  required: ['options'],
  properties: { options: schemaRef(webAuthnOptions) },
} as const satisfies RouteSchema;

/** `accounts/registration-email.response` (202): the code was mailed if the address can receive it. */
export const registrationEmailResponse = {
  $id: 'accounts/registration-email.response',
  type: 'object',
  additionalProperties: false,
  required: ['sent', 'email', 'expiresInSeconds'],
  properties: { sent: { const: true }, email: { type: 'string' }, expiresInSeconds: { type: 'integer' } },
} as const satisfies RouteSchema;

/**
 * `accounts/session.response`: a new session: `sessionToken` (bearer use), or with `session: 'cookie'`
 * the session cookie and `csrfToken`; `created` on email-code verification.
 */
export const sessionResponse = {
  $id: 'accounts/session.response',
  type: 'object',
  additionalProperties: false,
  required: ['expiresAt', 'account'],
  oneOf: [
    { type: 'object', required: ['sessionToken'], properties: { sessionToken: { type: 'string' } } },
    { type: 'object', required: ['csrfToken'], properties: { csrfToken: { type: 'string' } } },
  ],
  properties: {
    sessionToken: { type: 'string', description: 'Send as `Authorization: Bearer` (session scheme).' },
    csrfToken: { type: 'string', description: 'With `session: "cookie"`: send as `X-CSRF-Token` on writes.' },
    expiresAt: DATE_TIME,
    created: { type: 'boolean', description: 'Email-code verification only: the account was created now.' },
    account: schemaRef(account),
  },
} as const satisfies RouteSchema;

/** `accounts/me.response`: the account plus what enabled plugins contribute (organizations, passkeys, seal). */
export const meResponse = {
  $id: 'accounts/me.response',
  type: 'object',
  required: ['account', 'organizations'],
  properties: {
    account: schemaRef(account),
    organizations: {
      type: 'array',
      description: 'Active memberships (orgs plugin): each organization with the caller\'s `role`.',
      items: { type: 'object', required: ['id', 'slug', 'name', 'role'], properties: { id: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } } },
    },
    credentialIds: { type: 'array', items: { type: 'string' } },
    personalSeal: { anyOf: [schemaRef(personalSeal), { type: 'null' }] },
    organizationSession: {
      type: 'object', additionalProperties: false, required: ['orgId'], properties: { orgId: { type: 'string', format: 'uuid' } },
      description: 'Only for an organization session (opened through an organization\'s identity provider): the one organization it reaches; `organizations` lists that one alone and nothing account-wide is answered.',
    },
  },
} as const satisfies RouteSchema;

/** `accounts/account.response`: `{account}`. */
export const accountResponse = {
  $id: 'accounts/account.response',
  type: 'object',
  additionalProperties: false,
  required: ['account'],
  properties: { account: schemaRef(account) },
} as const satisfies RouteSchema;

/** `accounts/passkey.response`: `{passkey}`. */
export const passkeyResponse = {
  $id: 'accounts/passkey.response',
  type: 'object',
  additionalProperties: false,
  required: ['passkey'],
  properties: { passkey: schemaRef(passkey) },
} as const satisfies RouteSchema;

/** `accounts/passkey-list.response`: `{passkeys}`. */
export const passkeyListResponse = {
  $id: 'accounts/passkey-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['passkeys'],
  properties: { passkeys: { type: 'array', items: schemaRef(passkey) } },
} as const satisfies RouteSchema;

/** `accounts/personal-seal.response`: `{personalSeal}`. */
export const personalSealResponse = {
  $id: 'accounts/personal-seal.response',
  type: 'object',
  additionalProperties: false,
  required: ['personalSeal'],
  properties: { personalSeal: schemaRef(personalSeal) },
} as const satisfies RouteSchema;

/** `accounts/stepup-options.response`: a step-up challenge and what it commits to. @see docs/seals.md */
export const stepupOptionsResponse = {
  $id: 'accounts/stepup-options.response',
  type: 'object',
  additionalProperties: false,
  required: ['hasPasskey', 'options'],
  properties: {
    hasPasskey: { type: 'boolean' },
    options: { anyOf: [schemaRef(webAuthnOptions), { type: 'null' }] },
    binding: {
      type: 'object',
      additionalProperties: false,
      required: ['version', 'nonce', 'purpose', 'subject', 'fields'],
      properties: {
        version: { const: 'aerie-stepup-v1' },
        nonce: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        purpose: { type: 'string' },
        subject: { type: 'string' },
        fields: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['key', 'value'], properties: { key: { type: 'string' }, value: { type: 'string' } } } },
      },
    },
  },
} as const satisfies RouteSchema;

/** `accounts/activity-log.response`: sign-ins and passkey changes, newest first. */
export const activityLogResponse = {
  $id: 'accounts/activity-log.response',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'eventType', 'method', 'keyId', 'keyFingerprint', 'ip', 'userAgent', 'occurredAt'],
        properties: {
          id: { type: 'string' },
          eventType: { enum: ['auth.login', 'seal.lifecycle.registered', 'seal.lifecycle.revoked'] },
          method: NULLABLE_STRING,
          keyId: NULLABLE_STRING,
          keyFingerprint: NULLABLE_STRING,
          ip: NULLABLE_STRING,
          userAgent: NULLABLE_STRING,
          occurredAt: DATE_TIME,
        },
      },
    },
  },
} as const satisfies RouteSchema;
