import { randomUUID } from 'node:crypto';
import type { Clock, CryptoService, Database, Mailer, RateLimiter, RateLimitService } from '../../core/index.ts';
import { oidcErrors } from './errors.ts';
import { refused } from './sign-in-failures.ts';

const CODES = 'oidc.login_codes';

/** A code is valid this long (seconds). */
export const LOGIN_CODE_TTL_SECONDS = 600;
/** Wrong tries one code allows; the fifth wrong one ends it. */
export const LOGIN_CODE_ATTEMPTS = 5;
/** Codes one address may be sent per hour in one organization, whoever asks. */
export const LOGIN_CODES_PER_ADDRESS_PER_HOUR = 5;
/** Codes one IP address may ask for, for any addresses, per 10 minutes. */
export const LOGIN_CODE_SENDS_PER_IP = { points: 30, durationSeconds: 600 };

/** Who the code is for, as the hosted login found them. */
export interface CodeRequest {
  orgId: string;
  /** The sign-in (provider interaction) the code belongs to: a code works only there. */
  interactionUid: string;
  /** NFC, lower case. */
  emailNormalized: string;
  /** The end user who may sign in with this address, or `null`: then no mail goes out, and no code will ever match. */
  endUserId: string | null;
  /** Where the mail says the code is for. */
  applicationName: string;
  ip: string;
}

/**
 * One-time 6-digit codes the hosted login mails to end users: SHA-256 at rest, valid 10 minutes,
 * bound to one sign-in and one address, five wrong tries per code, five codes per address per hour
 * per organization, 30 requests per IP address per 10 minutes. The answer is the same whether the
 * address belongs to an end user or not: for an unknown address a row is written (so limits and
 * timing match) but nothing is mailed and no code matches.
 * @see docs/api/signin.md "Email code"
 */
export class LoginCodes {
  private readonly sendsPerIp: RateLimiter;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
    private readonly mail: Mailer,
    rateLimits: RateLimitService,
  ) {
    this.sendsPerIp = rateLimits.limiter({ name: 'oidc.login-code-sends', ...LOGIN_CODE_SENDS_PER_IP });
  }

  /**
   * Issues a code (superseding earlier codes of this sign-in) and mails it when there is an end user.
   * @returns the code's lifetime in seconds
   * @throws 429 `RATE_LIMITED` with `retryAfterSeconds` (nothing is written or sent)
   */
  async issue(request: CodeRequest): Promise<{ expiresInSeconds: number }> {
    await this.sendsPerIp.consume(request.ip);
    const now = this.clock.now();
    const code = this.crypto.randomDigits(6);
    await this.db.transaction(async (trx) => {
      // One organization and address at a time, so the hourly count holds under concurrent requests.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`oidc.login-code:${request.orgId}:${request.emailNormalized}`]);
      const recent = (await trx(CODES).where({ orgId: request.orgId, emailNormalized: request.emailNormalized })
        .where('createdAt', '>', new Date(now.getTime() - 3600_000)).orderBy('createdAt', 'asc').select('createdAt')) as Array<{ createdAt: Date }>;
      if (recent.length >= LOGIN_CODES_PER_ADDRESS_PER_HOUR) {
        throw oidcErrors.tooManyCodes((recent[recent.length - LOGIN_CODES_PER_ADDRESS_PER_HOUR].createdAt.getTime() + 3600_000 - now.getTime()) / 1000);
      }
      await trx(CODES).where({ orgId: request.orgId, interactionUid: request.interactionUid }).whereNull('consumedAt').update({ consumedAt: now });
      await trx(CODES).insert({
        id: randomUUID(), orgId: request.orgId, interactionUid: request.interactionUid, emailNormalized: request.emailNormalized,
        endUserId: request.endUserId, codeHash: this.hash(request.interactionUid, request.emailNormalized, code), attempts: 0,
        expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_SECONDS * 1000), createdAt: now,
      });
    });
    if (request.endUserId) {
      await this.mail.send({
        to: request.emailNormalized,
        subject: `Your sign-in code for ${request.applicationName}: ${code}`,
        text: `Your code to sign in to ${request.applicationName} is ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this message.\n`,
        headers: { 'X-Aerie-Template': 'enduser-login-code' },
      });
    }
    return { expiresInSeconds: LOGIN_CODE_TTL_SECONDS };
  }

  /**
   * Checks a code for this sign-in and address and spends it when right.
   * @returns the end user's id
   * @throws 400 `LOGIN_CODE_INVALID` with `attemptsRemaining` (a wrong try, counted),
   *   400 `LOGIN_CODE_EXPIRED` (no live code: expired, used, superseded or out of tries); each
   *   marked as a failed attempt ({@link refused}: `unknown_account` for an address no end user
   *   has, else `invalid_code`, `too_many_attempts` or `expired_code`), except a check in a sign-in
   *   that never asked a code for the address
   */
  async verify(orgId: string, interactionUid: string, emailNormalized: string, code: string): Promise<string> {
    const now = this.clock.now();
    const outcome = await this.db.transaction(async (trx) => {
      const row = (await trx(CODES).where({ orgId, interactionUid, emailNormalized }).whereNull('consumedAt').where('expiresAt', '>', now)
        .orderBy('createdAt', 'desc').forUpdate().first('id', 'codeHash', 'attempts', 'endUserId')) as
        { id: string; codeHash: string; attempts: number; endUserId: string | null } | undefined;
      if (!row) {
        // Only to say why in the audit chain: the newest code of this sign-in and address, whatever its state.
        const last = (await trx(CODES).where({ orgId, interactionUid, emailNormalized }).orderBy('createdAt', 'desc').first('attempts', 'endUserId')) as
          { attempts: number; endUserId: string | null } | undefined;
        return { kind: 'expired' as const, last };
      }
      const right = this.crypto.constantTimeEqual(row.codeHash, this.hash(interactionUid, emailNormalized, code)) && row.endUserId !== null;
      if (right) {
        await trx(CODES).where({ id: row.id }).update({ consumedAt: now });
        return { kind: 'right' as const, endUserId: row.endUserId! };
      }
      const attempts = row.attempts + 1;
      await trx(CODES).where({ id: row.id }).update({ attempts, ...(attempts >= LOGIN_CODE_ATTEMPTS ? { consumedAt: now } : {}) });
      return { kind: 'wrong' as const, attemptsRemaining: LOGIN_CODE_ATTEMPTS - attempts, endUserId: row.endUserId };
    });
    if (outcome.kind === 'expired') {
      const { last } = outcome;
      if (!last) throw oidcErrors.codeExpired();
      if (!last.endUserId) throw refused(oidcErrors.codeExpired(), { reason: 'unknown_account' });
      throw refused(oidcErrors.codeExpired(), { reason: last.attempts >= LOGIN_CODE_ATTEMPTS ? 'too_many_attempts' : 'expired_code', endUserId: last.endUserId });
    }
    if (outcome.kind === 'wrong') {
      throw refused(oidcErrors.codeInvalid(outcome.attemptsRemaining), outcome.endUserId ? { reason: 'invalid_code', endUserId: outcome.endUserId } : { reason: 'unknown_account' });
    }
    return outcome.endUserId;
  }

  /** Deletes codes older than a day (their hour counts and lifetimes are long over). @returns how many */
  async purge(): Promise<number> {
    return this.db.knex(CODES).where('createdAt', '<', new Date(this.clock.now().getTime() - 86_400_000)).delete();
  }

  private hash(interactionUid: string, emailNormalized: string, code: string): string {
    return this.crypto.sha256Hex(`${interactionUid}:${emailNormalized}:${code}`);
  }
}
