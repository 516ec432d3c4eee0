/**
 * The endusers plugin's service interfaces and DTOs: what other plugins may call through its refs
 * (`api.ts`). The classes that implement them stay inside the plugin.
 * @see docs/api/endusers.md
 */
import type { Knex } from 'knex';

/** An end user's status. @see docs/api/endusers.md "States" */
export type EndUserStatus = 'Pending' | 'Active' | 'Suspended';

/** An end user as the dashboard sees it (never a password hash). */
export interface EndUserDto {
  id: string;
  /** `eu_…`: the organization-scoped identity badge. */
  badge: string;
  email: string;
  displayName: string | null;
  status: EndUserStatus;
  emailVerifiedAt: string | null;
  source: string;
  /** App groups the end user has access to. */
  appGroupIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** A page of the list. */
export interface EndUserPage {
  endUsers: EndUserDto[];
  page: number;
  pageSize: number;
  total: number;
}

/** List filters. */
export interface EndUserQuery {
  page: number;
  pageSize: number;
  /** Substring of the email or display name (case-insensitive). */
  search?: string;
  status?: EndUserStatus;
  appGroupId?: string;
}

/** One row of an import. `passwordHash*` only through the public import (stored dormant). */
export interface ImportUser {
  email: string;
  displayName?: string;
  passwordHash?: string;
  passwordHashAlgorithm?: string;
}

/** An import request. */
export interface ImportRequest {
  appGroupId: string;
  source: string;
  sendInvites: boolean;
  users: ImportUser[];
}

/** Why a row was not created. @see docs/api/endusers.md "Bulk import" */
export type ImportReason =
  | 'email_invalid' | 'display_name_invalid' | 'password_hash_incomplete' | 'duplicate_in_request' | 'exists';

/** The answer for one row, in request order. */
export interface ImportRowResult {
  index: number;
  email: string;
  result: 'created' | 'duplicate' | 'invalid';
  reason?: ImportReason;
  /** The new end user (`created`) or the existing one (`duplicate` with reason `exists`). */
  endUserId?: string;
  /** `duplicate` of an existing end user who had no access to the group and now has it. */
  accessGranted?: boolean;
}

/**
 * `endusers.endUsers`: an organization's end users. Ids of other organizations look absent (404).
 * @see docs/api/endusers.md
 */
export interface EndUsersService {
  list(orgId: string, query: EndUserQuery): Promise<EndUserPage>;
  /** One end user of the organization, or `undefined`. */
  get(orgId: string, endUserId: string): Promise<EndUserDto | undefined>;
  /** Creates a `Pending` end user with access to the group and queues their invite. @throws 400, 409 `END_USER_EXISTS` */
  create(orgId: string, input: { email: string; displayName?: string; appGroupId: string }): Promise<EndUserDto>;
  /** Queues a new invite (the older ones stop working). @throws 404, 409 `END_USER_STATUS_CONFLICT`, 429 */
  resendInvite(orgId: string, endUserId: string): Promise<EndUserDto>;
  /** @throws 404, 409 `END_USER_STATUS_CONFLICT` */
  suspend(orgId: string, endUserId: string): Promise<EndUserDto>;
  /** @throws 404, 409 `END_USER_STATUS_CONFLICT` */
  activate(orgId: string, endUserId: string): Promise<EndUserDto>;
  /** Deletes the end user, their access and invites. @throws 404 */
  delete(orgId: string, endUserId: string): Promise<void>;
  /** @throws 404 for an unknown end user or no access row */
  removeAccess(orgId: string, endUserId: string, appGroupId: string): Promise<void>;
}

/**
 * `endusers.imports`: many end users in one request, each row answered on its own.
 * @see docs/api/endusers.md "Bulk import"
 */
export interface EndUserImportsService {
  /** @throws 400 `VALIDATION_FAILED` (`appGroupId`) for a group of another organization; nothing is written */
  import(orgId: string, request: ImportRequest): Promise<ImportRowResult[]>;
}

/**
 * How an end user proved who they are: `method` of `org.end_user.signed_in` and
 * `org.end_user.sign_in_failed` (a `social` one names the upstream provider in `provider`).
 * @see docs/api/endusers.md "Sign-in events"
 */
export type SignInMethod = 'email_code' | 'passkey' | 'social' | 'aerie_account';

/**
 * Why a sign-in attempt failed: `reason` of `org.end_user.sign_in_failed`.
 * @see docs/api/endusers.md "Sign-in events"
 */
export type SignInFailureReason =
  | 'unknown_account' | 'invalid_code' | 'expired_code' | 'too_many_attempts' | 'passkey_rejected'
  | 'email_unverified' | 'provider_error' | 'suspended' | 'access_denied';

/** How an end user came to be: `via` of `org.end_user.created` (and `org.end_user.access_granted`). */
export type EndUserCreatedVia = 'admin' | 'import' | 'self_signup';

/** Where a sign-in attempt came from, as its audit event records it. */
export interface SignInContext {
  /**
   * The client's IP address as the HTTP server sees it (koa's `ctx.ip`: the socket's address, or
   * the first `X-Forwarded-For` entry with `http.trustProxy`). Left out when empty.
   */
  ip?: string;
  /** The upstream provider of a `social` sign-in (`google`, `microsoft`, `oidc`, …). */
  provider?: string;
}

/** A failed end-user sign-in attempt. @see docs/api/endusers.md "Sign-in events" */
export interface SignInFailure extends SignInContext {
  appGroupId: string;
  /** The application's `client_…` key, when the attempt was made for one. */
  clientKey?: string;
  method: SignInMethod;
  reason: SignInFailureReason;
  /** The address the attempt named (recorded NFC, lowercase, when it is an address end users may have). */
  email?: string;
  /** The end user the attempt was against; absent for an unknown account. */
  endUserId?: string;
}

/**
 * A sign-in code to mail (the oidc plugin's emailed codes): the code itself, in memory only — the
 * queued job carries it envelope-encrypted. `endUserId` null for an address no end user may sign in
 * with: the job is queued all the same and mails nothing.
 * @see docs/api/signin.md "Email code"
 */
export interface SignInCodeMail {
  orgId: string;
  /** The code's id (its row in the oidc plugin): binds the encrypted code to it. */
  codeId: string;
  endUserId: string | null;
  /** Mails with the same key go through the same queue, in order (the sign-in: its newest mail holds its live code). */
  orderKey: string;
  /** Six digits. */
  code: string;
  /** Named in the mail's subject and text. */
  applicationName: string;
  /** When the code expires: a job that runs later mails nothing. */
  expiresAt: Date;
}

/** An active end user with access to one app group, as a token describes them. Read fresh each time. */
export interface EndUserSubject {
  id: string;
  email: string;
  emailVerified: boolean;
  /**
   * Whether Aerie itself proved the address (an emailed code, an invite link it mailed, a sign-in
   * with an Aerie account), not only the organization's social connection: only then may the
   * address speak for an Aerie account.
   */
  emailProven: boolean;
  displayName: string | null;
  /** The end user's permissions for the app group (sorted, unique). */
  permissions: string[];
}

/**
 * `endusers.signIn`: what the OpenID provider and the hosted login read and change about end users.
 * Fresh reads, filtered by organization. @see docs/api/signin.md
 */
export interface EndUserSignInService {
  /**
   * The end user with this email (NFC, case-insensitive) who may sign in to the app group: `Pending`
   * or `Active`, with access to the group. `undefined` otherwise (also for a malformed address).
   */
  candidate(orgId: string, appGroupId: string, email: string): Promise<string | undefined>;
  /**
   * The end user a person signing in with an identity proven elsewhere becomes (their Aerie account,
   * or a social provider's verified email): matched by email (NFC, case-insensitive) inside the
   * organization, given access to the group when they lacked it; a new one is created with `source`
   * (default `Aerie`). Audited as an import would be.
   * @returns the end user's id, or `undefined` for a suspended end user (or an address the end-user rules refuse)
   */
  forAccount(orgId: string, appGroupId: string, person: { email: string; displayName: string | null }, source?: string): Promise<string | undefined>;
  /** The end user as a token describes them, or `undefined` unless `Active` with access to the group. */
  subject(orgId: string, endUserId: string, appGroupId: string): Promise<EndUserSubject | undefined>;
  /**
   * Records a proven sign-in (audit `org.end_user.signed_in` with the end user's normalized `email`
   * and the context's `ip` and `provider`); a `Pending` end user becomes `Active` with the email
   * verified (audit `org.end_user.verified`). An end user who may not sign in changes nothing and is
   * recorded as {@link signInFailed} (`suspended`, `access_denied`, `unknown_account` when deleted).
   * @returns the subject, or `undefined` when the end user may not sign in (suspended, deleted, no access)
   */
  signedIn(orgId: string, endUserId: string, appGroupId: string, method: SignInMethod, clientKey: string, context?: SignInContext): Promise<EndUserSubject | undefined>;
  /**
   * Records a failed sign-in attempt (audit `org.end_user.sign_in_failed`) in a transaction of its
   * own, so it stays when the attempt's error rolls the caller's work back. At most 60 events per
   * organization and IP address per 10 minutes are written; beyond, the attempt is not recorded.
   * Never throws: a failure to record is logged.
   * @returns whether the event was written
   */
  signInFailed(orgId: string, failure: SignInFailure): Promise<boolean>;
  /**
   * Queues the mail of a sign-in code as a background job (`endusers.send-sign-in-code`, or `.none` for an address without an end user), in the
   * caller's transaction (it exists only if that commits), so the code request answers before any
   * mail is sent. Queue it for every request, an address without an end user included (that job
   * mails nothing): the request then does the same work for every address. The job is retried 5
   * times (the first after 5–10 s, each wait doubling) when the mail server refuses; each code is a
   * job of its own. @see docs/api/signin.md "The mail: queued after the answer"
   */
  queueSignInCode(trx: Knex.Transaction, mail: SignInCodeMail): Promise<void>;
  /**
   * Replaces the end user's permissions for the app group (audit `org.end_user.permissions_changed`).
   * @returns the stored list (sorted, unique)
   * @throws 400 `VALIDATION_FAILED` (`permissions`: more than 100, or a malformed one); 404 for an
   *   unknown end user or no access to the group
   */
  setPermissions(orgId: string, endUserId: string, appGroupId: string, permissions: string[]): Promise<string[]>;
}
