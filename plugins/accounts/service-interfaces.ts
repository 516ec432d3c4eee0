/**
 * The accounts plugin's service interfaces: what other plugins may call through its refs (`api.ts`).
 * The classes that implement them stay inside the plugin.
 */
import type { Principal } from '../../core/index.ts';
import type { AccountDto } from './api.ts';
import type { PersonalSealDto } from './personal-seals.service.ts';
import type { Knex } from 'knex';

/** An account as stored (`accounts.accounts`); `AccountDto` is its public shape. */
export interface AccountRecord {
  id: string;
  email: string;
  displayName: string | null;
  emailVerifiedAt: Date | null;
  /**
   * The organization whose identity provider or SCIM token made this account, or null for an Aerie
   * account. A federated account is that organization's: it signs in only through it, into an
   * organization session, and no Aerie-wide look-up by email finds it. @see docs/api/federation.md
   */
  federatedOrgId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `accounts.accounts`: reads and changes accounts. */
export interface AccountsService {
  /** The account with this id, or `undefined`. */
  findById(id: string, trx?: Knex.Transaction): Promise<AccountRecord | undefined>;
  /**
   * The Aerie account with this email (case-insensitive), or `undefined`. Accounts an organization's
   * IdP or SCIM made ({@link AccountRecord.federatedOrgId}) are never answered: see {@link findFederated}.
   */
  findByEmail(email: string, trx?: Knex.Transaction): Promise<AccountRecord | undefined>;
  /**
   * Returns the Aerie account for an email Aerie itself just verified (its emailed code, or an
   * invitation link it mailed), creating it (with `displayName`) when new. Never a federated account.
   * @returns the account and whether it was created now.
   */
  ensureVerified(email: string, displayName: string | null, trx: Knex.Transaction): Promise<{ account: AccountRecord; created: boolean }>;
  /** The account organization `orgId`'s IdP or SCIM made for this email (case-insensitive), or `undefined`. */
  findFederated(orgId: string, email: string, trx?: Knex.Transaction): Promise<AccountRecord | undefined>;
  /**
   * Returns the account of organization `orgId`'s directory for this email, creating it when new:
   * federated to `orgId`, its email not verified for Aerie-wide use (`emailVerifiedAt` null).
   * @returns the account and whether it was created now.
   */
  ensureFederated(orgId: string, email: string, displayName: string | null, trx: Knex.Transaction): Promise<{ account: AccountRecord; created: boolean }>;
  /**
   * Changes the address of an account federated to `orgId` (the organization's directory renamed its
   * person). @returns false when the account is not `orgId`'s own, or another of its accounts has the address.
   */
  changeFederatedEmail(orgId: string, accountId: string, email: string, trx: Knex.Transaction): Promise<boolean>;
  /** Changes the display name. @throws 404 `NOT_FOUND` for an unknown account. */
  updateProfile(id: string, patch: { displayName: string }): Promise<AccountDto>;
  /** The client-facing shape of an account. */
  toDto(a: AccountRecord): AccountDto;
  /** An Aerie account (not a federated one) whose email is listed in `AERIE_PLATFORM_ADMINS` (case-insensitive). */
  isPlatformAdmin(account: Pick<AccountRecord, 'email' | 'federatedOrgId'>): boolean;
}

/**
 * `accounts.sessions`: opaque 256-bit session tokens, stored as SHA-256, with a sliding idle expiry
 * (`session.idleTtlSeconds`) capped by an absolute one (`session.absoluteTtlSeconds`).
 */
export interface SessionsService {
  /**
   * Opens a session; the token is returned once and only its hash is kept. With `csrf` (cookie
   * sessions) a CSRF token is made as well, returned once and kept as SHA-256. With `orgId` it is an
   * organization session: it reaches that organization only (docs/api/federation.md).
   */
  create(accountId: string, meta: { userAgent?: string; ip?: string; csrf?: boolean; orgId?: string }, trx: Knex.Transaction): Promise<{ token: string; expiresAt: Date; absoluteTtlSeconds: number; csrfToken?: string }>;
  /**
   * Whether `csrfToken` is the CSRF token of the session with this session token (constant-time;
   * false for bearer sessions, which have none). Reads only: a refused request changes nothing.
   */
  csrfMatches(token: string, csrfToken: string): Promise<boolean>;
  /**
   * The principal for a live session token presented as `kind`, or `null` (unknown, revoked or
   * expired, or a session of the other kind). Slides the idle expiry forward, never past the absolute
   * one. Organization sessions answer `sessionOrgId`.
   */
  authenticate(token: string, kind: 'bearer' | 'cookie'): Promise<Principal | null>;
  /** Ends a session (logout). Idempotent. */
  revoke(sessionId: string): Promise<void>;
  /**
   * The live sessions (not revoked, neither expiry passed) of the accounts `accounts` selects (a
   * query with an `account_id` column, e.g. an organization's active members), most recently seen
   * first, `offset`/`limit` applied, with `total` = all such sessions. Never a token or a hash.
   */
  listLive(accounts: Knex.QueryBuilder, page: { offset: number; limit: number }): Promise<{ items: SessionRecord[]; total: number }>;
}

/** A live session as an organization's console lists it (`GET /api/v1/admin/audit/sessions`): no token, no hashes. */
export interface SessionRecord {
  id: string;
  accountId: string;
  email: string;
  displayName: string | null;
  createdAt: Date;
  /** Last authenticated use, written at most once a minute. */
  lastSeenAt: Date;
  /** Idle expiry (slides on use, never past `absoluteExpiresAt`). */
  expiresAt: Date;
  absoluteExpiresAt: Date;
  userAgent: string | null;
  ip: string | null;
}

/**
 * `accounts.personalSeals`: binds one of an account's passkeys as its personal seal
 * (`POST /api/v1/seals`; no security mail, docs/audit.md) and answers whether an account has
 * one — the owner's half of an organization's `ready`.
 */
export interface PersonalSealsService {
  /**
   * Binds the account's passkey `credentialId` as its personal seal, replacing an earlier binding.
   * @throws 404 `PASSKEY_NOT_FOUND` (also for another account's passkey)
   */
  bind(accountId: string, credentialId: string): Promise<PersonalSealDto>;
  /** The account's personal seal, or null. */
  get(accountId: string, trx?: Knex.Transaction): Promise<PersonalSealDto | null>;
  /** Whether the account has bound a personal seal (a removed passkey unbinds it). */
  hasPersonalSeal(accountId: string): Promise<boolean>;
}
