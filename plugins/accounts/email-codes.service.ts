import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, HOUR_MS, inject, injectable, requesterNetwork, secondsUntil, type Clock, type CryptoService, type Database, type Mailer, type RateLimiter, type RateLimitService } from '../../core/index.ts';
import { EmailCodeModel } from './models/account.model.ts';
import { CodeMissModel } from './models/code-miss.model.ts';
import { accountsErrors } from './errors.ts';

/** A code is valid this long (seconds). */
export const CODE_TTL_SECONDS = 600;
/** Wrong tries one code allows; a 6th try with it is refused (429 `TOO_MANY_ATTEMPTS`), a new code starts again. */
export const CODE_MAX_ATTEMPTS = 5;
/**
 * Wrong codes everyone together may make for one address per {@link WRONG_CODE_WINDOW_SECONDS};
 * beyond, each requester may still make one wrong code per window for it (so no stranger can take
 * the owner's try, and guessing stays bounded: docs/api/accounts.md "Why these numbers").
 */
export const WRONG_CODES_PER_ADDRESS = 25;
/** The window of the wrong-code counts (seconds): a rolling hour. */
export const WRONG_CODE_WINDOW_SECONDS = HOUR_MS / 1000;
/** Codes one requester (IPv4 address, IPv6 /64) may ask for one address per rolling hour. */
export const CODES_PER_HOUR = 5;
/** Codes everyone together may ask for one address per rolling hour; beyond, only a requester with none in the hour gets one. */
export const CODES_PER_ADDRESS_PER_HOUR = 20;
/** Codes one requester may ask for, for any addresses, per 10 minutes. */
export const CODE_SENDS_PER_IP = { points: 30, durationSeconds: 600 };
/** Verification requests one requester may make, right or wrong, per 10 minutes. */
export const VERIFICATIONS_PER_IP = { points: 60, durationSeconds: 600 };

/** What a checked code was: right (the code is spent), or wrong (counted; tries left for the caller). */
export type CodeCheck = { ok: true; displayName: string | null } | { ok: false; attemptsRemaining: number };

/**
 * One-time 6-digit email codes for registration and sign-in: valid 10 minutes, stored as SHA-256
 * of `email:code`, each **bound to its requester** (the IPv4 address or IPv6 /64 that asked): only
 * that requester's newest code is checked, so a stranger can neither guess at the owner's code nor
 * spend its tries. Limits count per address and requester, each over a rolling hour; the model and
 * its numbers are in docs/api/accounts.md "Limits".
 */
@injectable()
export class EmailCodesService {
  private readonly sendsPerIp: RateLimiter;
  private readonly verificationsPerIp: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
  ) {
    this.sendsPerIp = rateLimits.limiter({ name: 'accounts.code-sends', ...CODE_SENDS_PER_IP });
    this.verificationsPerIp = rateLimits.limiter({ name: 'accounts.code-checks', ...VERIFICATIONS_PER_IP });
  }

  /**
   * Issues a code and mails it (before answering: every address gets the mail, so the answer's time
   * says nothing about accounts); supersedes the same requester's earlier codes for the address.
   * @param ip - the requesting IP address.
   * @throws 429 `RATE_LIMITED` with `retryAfterSeconds` (and `Retry-After`): past
   *   {@link CODE_SENDS_PER_IP} for the requester, {@link CODES_PER_HOUR} for the address from this
   *   requester, or — once the address had {@link CODES_PER_ADDRESS_PER_HOUR} in the hour — when this
   *   requester already had one in the hour; nothing is stored or sent.
   * @returns the code's lifetime in seconds.
   */
  async issue(email: string, displayName: string | null, ip: string): Promise<{ expiresInSeconds: number }> {
    await this.sendsPerIp.consume(requesterNetwork(ip));
    const now = this.clock.now();
    const requester = this.requesterOf(ip);
    const code = this.crypto.randomDigits(6);
    await this.db.transaction(async (trx) => {
      await this.lock(trx, email);
      const recent = await EmailCodeModel.query(trx).where({ email }).where('createdAt', '>', new Date(now.getTime() - HOUR_MS)).select('createdAt', 'requester');
      const all = recent.map((r) => new Date(r.createdAt).getTime());
      const mine = recent.filter((r) => r.requester === requester || r.requester === null).map((r) => new Date(r.createdAt).getTime());
      const wait = secondsUntil(now.getTime(), [mine, all], ([m, a]) => m < CODES_PER_HOUR && (a < CODES_PER_ADDRESS_PER_HOUR || m === 0));
      if (wait > 0) throw accountsErrors.tooManyCodes(wait);
      await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt')
        .where((q) => q.where({ requester }).orWhereNull('requester')).patch({ consumedAt: now });
      await EmailCodeModel.query(trx).insert({
        id: randomUUID(), email, codeHash: this.hash(email, code), displayName, attempts: 0, requester,
        expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000), createdAt: now,
      });
    });
    await this.mail.send({
      to: email,
      subject: `Your Aerie code: ${code}`,
      text: `Your Aerie verification code is ${code}\n\nIt is valid for 10 minutes. If you did not ask for it, ignore this message.\n`,
      headers: { 'X-Aerie-Template': 'email-code' },
    });
    return { expiresInSeconds: CODE_TTL_SECONDS };
  }

  /**
   * Before a verification's transaction: counts the request against the requester. Never inside a transaction.
   * @throws 429 `RATE_LIMITED` with `retryAfterSeconds` past {@link VERIFICATIONS_PER_IP}.
   */
  async admit(ip: string): Promise<void> {
    await this.verificationsPerIp.consume(requesterNetwork(ip));
  }

  /**
   * Checks a code against the requester's newest live code for the address, inside the caller's
   * transaction (one check per address at a time), and spends it when right. A wrong code is
   * counted (on the code and in the address's hour) and reported as a result, not thrown, so the
   * count commits.
   * @returns {@link CodeCheck}: `attemptsRemaining` is the fewer of the code's tries left and the
   *   address's shared wrong codes left this hour.
   * @throws 400 `CODE_EXPIRED` (this requester has no live code, or `code` is one of its superseded or
   *   used codes: not counted); 429 `TOO_MANY_ATTEMPTS` with `retryAfterSeconds` when the code has had
   *   {@link CODE_MAX_ATTEMPTS} wrong tries, or the address had {@link WRONG_CODES_PER_ADDRESS} in the
   *   hour and this requester already one (nothing is checked or counted).
   */
  async consume(email: string, code: string, ip: string, trx: Knex.Transaction): Promise<CodeCheck> {
    const now = this.clock.now();
    const requester = this.requesterOf(ip);
    await this.lock(trx, email);
    const live = await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt').where('expiresAt', '>', now)
      .where((q) => q.where({ requester }).orWhereNull('requester')).orderBy('createdAt', 'desc');
    if (live.length === 0) throw accountsErrors.codeExpired();
    const usable = live.filter((row) => row.attempts < CODE_MAX_ATTEMPTS);
    if (usable.length === 0) throw accountsErrors.tooManyAttempts((new Date(live[0].expiresAt).getTime() - now.getTime()) / 1000);
    const misses = await CodeMissModel.query(trx).where({ email }).where('createdAt', '>', new Date(now.getTime() - HOUR_MS)).select('requester', 'createdAt');
    const all = misses.map((m) => new Date(m.createdAt).getTime());
    const mine = misses.filter((m) => m.requester === requester).map((m) => new Date(m.createdAt).getTime());
    const wait = secondsUntil(now.getTime(), [all, mine], ([a, m]) => a < WRONG_CODES_PER_ADDRESS || m === 0);
    if (wait > 0) throw accountsErrors.tooManyAttempts(wait);
    const hash = this.hash(email, code);
    // Every usable code is compared, in constant time, whichever matches.
    const match = usable.filter((row) => this.crypto.constantTimeEqual(row.codeHash, hash))[0];
    if (match) {
      await EmailCodeModel.query(trx).findById(match.id).patch({ consumedAt: now });
      return { ok: true, displayName: match.displayName };
    }
    // A code this requester was sent before (superseded, or used) is expired, not a wrong guess.
    const earlier = await EmailCodeModel.query(trx).where({ email, codeHash: hash }).whereNotNull('consumedAt')
      .where((q) => q.where({ requester }).orWhereNull('requester')).first();
    if (earlier) throw accountsErrors.codeExpired();
    await EmailCodeModel.query(trx).whereIn('id', usable.map((row) => row.id)).increment('attempts', 1);
    await CodeMissModel.query(trx).insert({ id: randomUUID(), email, requester, createdAt: now });
    const codeLeft = CODE_MAX_ATTEMPTS - (usable[0].attempts + 1);
    return { ok: false, attemptsRemaining: Math.max(0, Math.min(codeLeft, WRONG_CODES_PER_ADDRESS - (all.length + 1))) };
  }

  /** One code request or check per address at a time, so the hourly counts hold under concurrency. */
  private async lock(trx: Knex.Transaction, email: string): Promise<void> {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`accounts.email-code:${email}`]);
  }

  private requesterOf(ip: string): string {
    return this.crypto.sha256Hex(`requester:${requesterNetwork(ip)}`);
  }

  private hash(email: string, code: string): string {
    return this.crypto.sha256Hex(`${email}:${code}`);
  }
}
