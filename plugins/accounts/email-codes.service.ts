import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type CryptoService, type Database, type Mailer, type RateLimiter, type RateLimitService } from '../../core/index.ts';
import { EmailCodeModel } from './models/account.model.ts';
import { accountsErrors } from './errors.ts';

/** A code is valid this long (seconds). */
export const CODE_TTL_SECONDS = 600;
/** Wrong codes allowed per address and IP address within {@link WRONG_CODE_WINDOW_SECONDS}; a new code from that IP starts again. */
export const CODE_MAX_ATTEMPTS = 5;
/** Wrong codes allowed per address from all IP addresses together within {@link WRONG_CODE_WINDOW_SECONDS}. */
export const WRONG_CODES_PER_ADDRESS = 25;
/** The window of the wrong-code limits (seconds). */
export const WRONG_CODE_WINDOW_SECONDS = 600;
/** Codes one requester (IP address) may ask for one address per hour. */
export const CODES_PER_HOUR = 5;
/** Codes all requesters together may ask for one address per hour (bounds the mail to an inbox). */
export const CODES_PER_ADDRESS_PER_HOUR = 20;
/** Codes one IP address may ask for, for any addresses, per 10 minutes. */
export const CODE_SENDS_PER_IP = { points: 30, durationSeconds: 600 };
/** Verification requests one IP address may make, right or wrong, per 10 minutes. */
export const VERIFICATIONS_PER_IP = { points: 60, durationSeconds: 600 };

/**
 * One-time 6-digit email codes for registration and sign-in: valid 10 minutes, stored as SHA-256
 * of `email:code`. Limits are per address **and requester** (IP address), so a stranger can neither
 * use up the owner's codes nor cancel them: a new code supersedes only the same requester's earlier
 * codes, and any live code of the address signs in. See docs/api/accounts.md "Limits".
 */
@injectable()
export class EmailCodesService {
  private readonly sendsPerIp: RateLimiter;
  private readonly verificationsPerIp: RateLimiter;
  private readonly wrongPerRequester: RateLimiter;
  private readonly wrongPerAddress: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
  ) {
    this.sendsPerIp = rateLimits.limiter({ name: 'accounts.code-sends', ...CODE_SENDS_PER_IP });
    this.verificationsPerIp = rateLimits.limiter({ name: 'accounts.code-checks', ...VERIFICATIONS_PER_IP });
    this.wrongPerRequester = rateLimits.limiter({ name: 'accounts.wrong-codes', points: CODE_MAX_ATTEMPTS, durationSeconds: WRONG_CODE_WINDOW_SECONDS });
    this.wrongPerAddress = rateLimits.limiter({ name: 'accounts.wrong-codes-all', points: WRONG_CODES_PER_ADDRESS, durationSeconds: WRONG_CODE_WINDOW_SECONDS });
  }

  /**
   * Issues a code and mails it; supersedes the same requester's earlier codes for the address and
   * starts their wrong-code count again.
   * @param ip - the requesting IP address.
   * @throws 429 `RATE_LIMITED` with `retryAfterSeconds` (and `Retry-After`): past
   *   {@link CODE_SENDS_PER_IP} for the IP, {@link CODES_PER_HOUR} for the address from this IP, or
   *   {@link CODES_PER_ADDRESS_PER_HOUR} for the address; nothing is sent.
   * @returns the code's lifetime in seconds.
   */
  async issue(email: string, displayName: string | null, ip: string): Promise<{ expiresInSeconds: number }> {
    await this.sendsPerIp.consume(ip);
    const now = this.clock.now();
    const requester = this.requesterOf(ip);
    const code = this.crypto.randomDigits(6);
    await this.db.transaction(async (trx) => {
      const hourAgo = new Date(now.getTime() - 3600_000);
      const recent = await EmailCodeModel.query(trx).where({ email }).where('createdAt', '>', hourAgo).orderBy('createdAt', 'asc');
      const mine = recent.filter((r) => r.requester === requester || r.requester === null);
      for (const [rows, limit] of [[mine, CODES_PER_HOUR], [recent, CODES_PER_ADDRESS_PER_HOUR]] as const) {
        if (rows.length >= limit) throw accountsErrors.tooManyCodes((new Date(rows[rows.length - limit].createdAt).getTime() + 3600_000 - now.getTime()) / 1000);
      }
      await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt')
        .where((q) => q.where({ requester }).orWhereNull('requester')).patch({ consumedAt: now });
      await EmailCodeModel.query(trx).insert({
        id: randomUUID(), email, codeHash: this.hash(email, code), displayName, attempts: 0, requester,
        expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000), createdAt: now,
      });
    });
    await this.wrongPerRequester.reset(`${email}|${ip}`);
    await this.mail.send({
      to: email,
      subject: `Your Aerie code: ${code}`,
      text: `Your Aerie verification code is ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this message.\n`,
      headers: { 'X-Aerie-Template': 'email-code' },
    });
    return { expiresInSeconds: CODE_TTL_SECONDS };
  }

  /**
   * Before a verification's transaction: counts the request against the IP and refuses when this
   * IP, or everyone together, has guessed wrong too often for the address. Never inside a transaction.
   * @throws 429 `RATE_LIMITED` (the IP's verifications), 429 `TOO_MANY_ATTEMPTS` (wrong codes), both
   *   with `retryAfterSeconds`.
   */
  async admit(email: string, ip: string): Promise<void> {
    await this.verificationsPerIp.consume(ip);
    for (const [limiter, key] of [[this.wrongPerRequester, `${email}|${ip}`], [this.wrongPerAddress, email]] as const) {
      const left = await limiter.peek(key);
      if (left.remaining === 0) throw accountsErrors.tooManyAttempts(left.resetSeconds);
    }
  }

  /**
   * Checks a code inside the caller's transaction and consumes it when it is one of the address's
   * live codes. A wrong code is reported as a result, not thrown; count it with {@link wrongCode}
   * after the transaction.
   * @returns `{ ok: true, displayName }` or `{ ok: false }`.
   * @throws 400 `CODE_EXPIRED` (no live code, or `code` is a superseded or used one).
   */
  async consume(email: string, code: string, trx: Knex.Transaction): Promise<{ ok: true; displayName: string | null } | { ok: false }> {
    const now = this.clock.now();
    const live = await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt').where('expiresAt', '>', now).orderBy('createdAt', 'desc').forUpdate();
    if (live.length === 0) throw accountsErrors.codeExpired();
    const hash = this.hash(email, code);
    // Every live code is compared, in constant time, whichever matches.
    const match = live.filter((row) => this.crypto.constantTimeEqual(row.codeHash, hash))[0];
    if (!match) {
      // A code this email was sent before (superseded by a newer one, or already used) is expired,
      // not a wrong guess: say so, and do not count it.
      const earlier = await EmailCodeModel.query(trx).where({ email, codeHash: hash }).whereNotNull('consumedAt').first();
      if (earlier) throw accountsErrors.codeExpired();
      return { ok: false };
    }
    await EmailCodeModel.query(trx).findById(match.id).patch({ consumedAt: now });
    return { ok: true, displayName: match.displayName };
  }

  /**
   * Counts a wrong code against this IP for the address and against the address. Never inside a transaction.
   * @returns 400 `INVALID_CODE` with `attemptsRemaining` (this IP's), or 429 `TOO_MANY_ATTEMPTS`
   *   when that was the last one the address had.
   */
  async wrongCode(email: string, ip: string): Promise<Error> {
    const all = await this.wrongPerAddress.consume(email, { code: 'TOO_MANY_ATTEMPTS', message: 'Too many wrong codes. Request a new code, or wait.' }).catch((err: Error) => err);
    const mine = await this.wrongPerRequester.consume(`${email}|${ip}`, { code: 'TOO_MANY_ATTEMPTS', message: 'Too many wrong codes. Request a new code, or wait.' }).catch((err: Error) => err);
    if (mine instanceof Error) return mine;
    if (all instanceof Error) return all;
    return accountsErrors.invalidCode(Math.min(mine.remaining, all.remaining));
  }

  private requesterOf(ip: string): string {
    return this.crypto.sha256Hex(`requester:${ip}`);
  }

  private hash(email: string, code: string): string {
    return this.crypto.sha256Hex(`${email}:${code}`);
  }
}
