import type { Logger } from 'pino';
import {
  AerieError, coreRefs, inject, injectable, isUuid, type AuditService, type Clock, type Database, type RateLimiter, type RateLimitService,
} from '../../core/index.ts';
import type { Knex } from 'knex';
import { ACCESS, END_USERS } from './end-user-record.ts';
import { isEndUserEmail, normalizeEmail } from './email.ts';
import { endUsersErrors } from './errors.ts';
import type { EndUserImports } from './imports.service.ts';
import { endUsersInternalRefs } from './internal-refs.ts';
import { SIGN_IN_FAILURE_EVENTS_PER_IP, signedInEvent, signInFailedEvent } from './sign-in-events.ts';
import type { SignInCodeMailer } from './sign-in-code-mail.ts';
import type {
  EndUserSignInService as EndUserSignInApi, EndUserSubject, SignInCodeMail, SignInContext, SignInFailure, SignInFailureReason, SignInMethod,
} from './service-interfaces.ts';

/** Sign-in methods in which Aerie itself proves the address (not a tenant's social connection, not a passkey alone). */
const PROVING_METHODS: ReadonlySet<SignInMethod> = new Set(['email_code', 'aerie_account']);

/** Permissions one end user may hold for one app group. */
export const MAX_PERMISSIONS = 100;
/** A permission: lower-case letters, digits and `:._-`, starting with a letter or digit, at most 100 characters. */
export const PERMISSION_PATTERN = /^[a-z0-9][a-z0-9:._-]{0,99}$/;

/**
 * `endusers.signIn`: what the OpenID provider and the hosted login read and change about end users.
 * Every read is fresh from the database (a suspension or a removed access is seen at once) and
 * filtered by organization.
 * @see docs/api/endusers.md "Permissions", docs/api/signin.md
 */
@injectable()
export class EndUserSignIn implements EndUserSignInApi {
  private readonly failureEvents: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(endUsersInternalRefs.imports.id) private readonly imports: EndUserImports,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
    @inject(coreRefs.logger.id) private readonly logger: Logger,
    @inject(endUsersInternalRefs.signInCodes.id) private readonly codeMail: SignInCodeMailer,
  ) {
    this.failureEvents = rateLimits.limiter({ name: 'endusers.sign-in-failure-events', ...SIGN_IN_FAILURE_EVENTS_PER_IP });
  }

  async candidate(orgId: string, appGroupId: string, email: string): Promise<string | undefined> {
    if (!isEndUserEmail(email) || !isUuid(appGroupId)) return undefined;
    const row = (await this.db.knex(`${END_USERS} as u`)
      .join(`${ACCESS} as a`, (j) => j.on('a.endUserId', 'u.id').andOn('a.orgId', 'u.orgId'))
      .where({ 'u.orgId': orgId, 'u.emailNormalized': normalizeEmail(email), 'a.appGroupId': appGroupId })
      .whereIn('u.status', ['Pending', 'Active'])
      .first('u.id')) as { id: string } | undefined;
    return row?.id;
  }

  async forAccount(orgId: string, appGroupId: string, person: { email: string; displayName: string | null }, source = 'Aerie'): Promise<string | undefined> {
    // The import path: a new end user (with `source`) or an existing one given access to the group, audited there.
    const [row] = await this.imports.write(orgId, {
      appGroupId, source, sendInvites: false, users: [{ email: person.email, ...(person.displayName ? { displayName: person.displayName } : {}) }],
    }, true, 'self_signup');
    if (!row?.endUserId) return undefined;
    const status = (await this.db.knex(END_USERS).where({ orgId, id: row.endUserId }).first('status')) as { status: string } | undefined;
    return status && status.status !== 'Suspended' ? row.endUserId : undefined;
  }

  async subject(orgId: string, endUserId: string, appGroupId: string): Promise<EndUserSubject | undefined> {
    if (!isUuid(endUserId) || !isUuid(appGroupId)) return undefined;
    const row = (await this.db.knex(`${END_USERS} as u`)
      .join(`${ACCESS} as a`, (j) => j.on('a.endUserId', 'u.id').andOn('a.orgId', 'u.orgId'))
      .where({ 'u.orgId': orgId, 'u.id': endUserId, 'a.appGroupId': appGroupId, 'u.status': 'Active' })
      .first('u.id', 'u.email', 'u.displayName', 'u.emailVerifiedAt', 'u.emailProvenAt', 'a.permissions')) as
      { id: string; email: string; displayName: string | null; emailVerifiedAt: Date | null; emailProvenAt: Date | null; permissions: string[] } | undefined;
    if (!row) return undefined;
    return {
      id: row.id, email: row.email, emailVerified: row.emailVerifiedAt !== null, emailProven: row.emailProvenAt !== null, displayName: row.displayName,
      permissions: row.permissions,
    };
  }

  async signedIn(
    orgId: string, endUserId: string, appGroupId: string, method: SignInMethod, clientKey: string, context: SignInContext = {},
  ): Promise<EndUserSubject | undefined> {
    if (!isUuid(endUserId) || !isUuid(appGroupId)) return undefined;
    const refused = await this.db.transaction(async (trx): Promise<SignInFailureReason | undefined> => {
      const row = (await trx(END_USERS).where({ orgId, id: endUserId }).forUpdate().first('status', 'emailVerifiedAt', 'emailProvenAt', 'emailNormalized')) as
        { status: string; emailVerifiedAt: Date | null; emailProvenAt: Date | null; emailNormalized: string } | undefined;
      if (!row) return 'unknown_account';
      if (row.status === 'Suspended') return 'suspended';
      if (!(await trx(ACCESS).where({ orgId, endUserId, appGroupId }).first('endUserId'))) return 'access_denied';
      const now = this.clock.now();
      if (row.status === 'Pending' || !row.emailVerifiedAt) {
        // An emailed code (or a passkey registered after one) proved the address.
        await trx(END_USERS).where({ orgId, id: endUserId }).update({ status: 'Active', emailVerifiedAt: row.emailVerifiedAt ?? now, updatedAt: now });
        await this.audit.append(trx, { orgId, eventType: 'org.end_user.verified', businessData: { endUserId, via: method } });
      }
      // Aerie proved the address itself: its emailed code, or the person's Aerie account.
      if (!row.emailProvenAt && PROVING_METHODS.has(method)) await trx(END_USERS).where({ orgId, id: endUserId }).update({ emailProvenAt: now });
      await this.audit.append(trx, signedInEvent(orgId, { endUserId, appGroupId, clientKey, method, emailNormalized: row.emailNormalized }, context));
      return undefined;
    });
    if (refused) {
      // A deleted end user is an unknown account: no id, as for an address nobody has.
      await this.signInFailed(orgId, { appGroupId, clientKey, method, reason: refused, ...(refused === 'unknown_account' ? {} : { endUserId }), ...context });
      return undefined;
    }
    return this.subject(orgId, endUserId, appGroupId);
  }

  async signInFailed(orgId: string, failure: SignInFailure): Promise<boolean> {
    try {
      if (!isUuid(failure.appGroupId)) return false;
      try {
        await this.failureEvents.consume(`${orgId}:${failure.ip ?? ''}`);
      } catch (err) {
        if (err instanceof AerieError && err.status === 429) return false; // over the window: answered as always, not recorded
        throw err;
      }
      // Its own transaction (the bare knex): the caller's error may roll its own work back.
      await this.audit.append(this.db.knex, signInFailedEvent(orgId, failure));
      return true;
    } catch (err) {
      this.logger.error({ err, orgId, reason: failure.reason }, 'recording a failed end-user sign-in failed');
      return false;
    }
  }

  queueSignInCode(trx: Knex.Transaction, mail: SignInCodeMail): Promise<void> {
    return this.codeMail.queue(trx, mail);
  }

  async setPermissions(orgId: string, endUserId: string, appGroupId: string, permissions: string[]): Promise<string[]> {
    if (!isUuid(endUserId)) throw endUsersErrors.endUserNotFound();
    if (!isUuid(appGroupId)) throw endUsersErrors.accessNotFound();
    const unique = [...new Set(permissions)].sort();
    if (unique.length > MAX_PERMISSIONS) throw endUsersErrors.invalidPermissions(`At most ${MAX_PERMISSIONS} permissions.`);
    const bad = unique.find((p) => !PERMISSION_PATTERN.test(p));
    if (bad !== undefined) throw endUsersErrors.invalidPermissions('A permission is 1 to 100 characters of a-z, 0-9 and :._- starting with a letter or digit.');
    await this.db.transaction(async (trx) => {
      const updated = await trx(ACCESS).where({ orgId, endUserId, appGroupId }).update({ permissions: JSON.stringify(unique) });
      if (updated === 0) {
        const exists = await trx(END_USERS).where({ orgId, id: endUserId }).first('id');
        throw exists ? endUsersErrors.accessNotFound() : endUsersErrors.endUserNotFound();
      }
      await this.audit.append(trx, { orgId, eventType: 'org.end_user.permissions_changed', businessData: { endUserId, appGroupId, permissions: unique } });
    });
    return unique;
  }
}
