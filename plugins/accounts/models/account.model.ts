import { Model } from 'objection';

/** Row of `accounts.accounts`. Emails are stored lowercased. */
export class AccountModel extends Model {
  static override tableName = 'accounts.accounts';
  id!: string;
  email!: string;
  displayName!: string | null;
  emailVerifiedAt!: Date | null;
  /** Set on an account an organization's IdP or SCIM made: it belongs to that organization's directory. */
  federatedOrgId!: string | null;
  createdAt!: Date;
  updatedAt!: Date;
}

/** Row of `accounts.email_codes`: a hashed 6-digit code, its expiry and failed attempts. */
export class EmailCodeModel extends Model {
  static override tableName = 'accounts.email_codes';
  id!: string;
  email!: string;
  codeHash!: string;
  displayName!: string | null;
  attempts!: number;
  expiresAt!: Date;
  consumedAt!: Date | null;
  createdAt!: Date;
  /** SHA-256 of the requesting IP address (null for codes from before it was recorded). */
  requester!: string | null;
}

/** Row of `accounts.sessions`: SHA-256 of the token, sliding and absolute expiry. */
export class SessionModel extends Model {
  static override tableName = 'accounts.sessions';
  id!: string;
  accountId!: string;
  tokenHash!: string;
  createdAt!: Date;
  lastSeenAt!: Date;
  expiresAt!: Date;
  absoluteExpiresAt!: Date;
  revokedAt!: Date | null;
  userAgent!: string | null;
  ip!: string | null;
  /** SHA-256 of the CSRF token of a cookie session; null for bearer sessions. */
  csrfTokenHash!: string | null;
  /** An organization session (opened through that organization's IdP) reaches this organization only. */
  orgId!: string | null;
}
