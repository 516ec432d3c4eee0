import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { HOUR_MS, coreRefs, inject, injectable, rateLimited, requesterNetwork, secondsUntil, type Clock, type CryptoService, type Database, type RateLimitService, type RateLimiter } from '../../core/index.ts';
import type { EndUserSignInService } from '../endusers/api.ts';
import { oidcErrors } from './errors.ts';
import { refused } from './sign-in-failures.ts';

const CODES = 'oidc.login_codes';
const MISSES = 'oidc.login_code_misses';

/** A code is valid this long (seconds). */
export const LOGIN_CODE_TTL_SECONDS = 600;
/** Wrong tries one code allows; the fifth wrong one ends it. */
export const LOGIN_CODE_ATTEMPTS = 5;
/** Codes one requester (IPv4 address, IPv6 /64) may ask for one address per rolling hour, in one organization. */
export const LOGIN_CODES_PER_REQUESTER_PER_HOUR = 5;
/** Codes everyone together may ask for one address per rolling hour in one organization; beyond, only a requester with none in the hour gets one. */
export const LOGIN_CODES_PER_ADDRESS_PER_HOUR = 10;
/** Wrong codes everyone together may make for one address per rolling hour in one organization; beyond, one per requester per hour. */
export const LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR = 25;
/** Codes one requester may ask for, for any addresses, per 10 minutes. */
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

/** Where a code's mail is queued: `endusers.signIn`. */
export type CodeMailQueue = Pick<EndUserSignInService, 'queueSignInCode'>;

/**
 * One-time 6-digit codes the hosted login and the SDK routes mail to end users: SHA-256 at rest,
 * valid 10 minutes, bound to one sign-in and one address, five wrong tries per code. Limits count
 * per address and requester over a rolling hour, so a stranger slows only their own requests and
 * guessing stays bounded (docs/api/signin.md "Limits and guessing"). The mail is queued as a
 * background job for every request, known address or not (for an unknown one the job mails nothing),
 * so the answer — and its time — is the same for every address.
 * @see docs/api/signin.md "Email code"
 */
@injectable()
export class LoginCodes {
  private readonly sendsPerIp: RateLimiter;

  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.rateLimits.id) rateLimits: RateLimitService,
  ) {
    this.sendsPerIp = rateLimits.limiter({ name: 'oidc.login-code-sends', ...LOGIN_CODE_SENDS_PER_IP });
  }

  /**
   * Issues a code (superseding earlier codes of this sign-in) and queues its mail, in one transaction.
   * @param queue - where the mail is queued (`endusers.signIn`)
   * @returns the code's lifetime in seconds
   * @throws 429 `RATE_LIMITED` with `retryAfterSeconds`: past {@link LOGIN_CODE_SENDS_PER_IP} for the
   *   requester, {@link LOGIN_CODES_PER_REQUESTER_PER_HOUR} for the address from this requester, or —
   *   once the address had {@link LOGIN_CODES_PER_ADDRESS_PER_HOUR} in the hour — when this requester
   *   already had one in the hour (nothing is written or queued)
   */
  async issue(request: CodeRequest, queue: CodeMailQueue): Promise<{ expiresInSeconds: number }> {
    await this.sendsPerIp.consume(requesterNetwork(request.ip));
    const now = this.clock.now();
    const code = this.crypto.randomDigits(6);
    const requester = this.requesterOf(request.ip);
    const { orgId, emailNormalized } = request;
    await this.db.transaction(async (trx) => {
      await this.lock(trx, orgId, emailNormalized);
      const recent = (await trx(CODES).where({ orgId, emailNormalized }).where('createdAt', '>', new Date(now.getTime() - HOUR_MS))
        .select('createdAt', 'requester')) as Array<{ createdAt: Date; requester: string | null }>;
      const all = recent.map((r) => r.createdAt.getTime());
      const mine = recent.filter((r) => r.requester === requester || r.requester === null).map((r) => r.createdAt.getTime());
      const wait = secondsUntil(now.getTime(), [mine, all], ([m, a]) => m < LOGIN_CODES_PER_REQUESTER_PER_HOUR && (a < LOGIN_CODES_PER_ADDRESS_PER_HOUR || m === 0));
      if (wait > 0) throw oidcErrors.tooManyCodes(wait);
      await trx(CODES).where({ orgId, interactionUid: request.interactionUid }).whereNull('consumedAt').update({ consumedAt: now });
      const id = randomUUID();
      const expiresAt = new Date(now.getTime() + LOGIN_CODE_TTL_SECONDS * 1000);
      await trx(CODES).insert({
        id, orgId, interactionUid: request.interactionUid, emailNormalized, endUserId: request.endUserId, requester,
        codeHash: this.hash(request.interactionUid, emailNormalized, code), attempts: 0, expiresAt, createdAt: now,
      });
      await queue.queueSignInCode(trx, {
        orgId, codeId: id, endUserId: request.endUserId, orderKey: request.interactionUid, code, applicationName: request.applicationName, expiresAt,
      });
    });
    return { expiresInSeconds: LOGIN_CODE_TTL_SECONDS };
  }

  /**
   * Checks a code for this sign-in and address and spends it when right.
   * @param ip - the checking client's address: its requester's share of the address's wrong codes
   * @returns the end user's id
   * @throws 400 `LOGIN_CODE_INVALID` with `attemptsRemaining` (a wrong try, counted: the fewer of the
   *   code's tries and the address's shared wrong codes left this hour), 400 `LOGIN_CODE_EXPIRED` (no
   *   live code: expired, used, superseded or out of tries), 429 `RATE_LIMITED` with
   *   `retryAfterSeconds` (the address had {@link LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR} wrong codes
   *   in the hour and this requester already one: nothing checked, counted or audited); the 400s
   *   marked as a failed attempt ({@link refused}: `unknown_account` for an address no end user has,
   *   else `invalid_code`, `too_many_attempts` or `expired_code`), except a check in a sign-in that
   *   never asked a code for the address
   */
  async verify(orgId: string, interactionUid: string, emailNormalized: string, code: string, ip: string): Promise<string> {
    const now = this.clock.now();
    const requester = this.requesterOf(ip);
    const outcome = await this.db.transaction(async (trx) => {
      await this.lock(trx, orgId, emailNormalized);
      const row = (await trx(CODES).where({ orgId, interactionUid, emailNormalized }).whereNull('consumedAt').where('expiresAt', '>', now)
        .orderBy('createdAt', 'desc').first('id', 'codeHash', 'attempts', 'endUserId')) as
        { id: string; codeHash: string; attempts: number; endUserId: string | null } | undefined;
      if (!row) {
        // Only to say why in the audit chain: the newest code of this sign-in and address, whatever its state.
        const last = (await trx(CODES).where({ orgId, interactionUid, emailNormalized }).orderBy('createdAt', 'desc').first('attempts', 'endUserId')) as
          { attempts: number; endUserId: string | null } | undefined;
        return { kind: 'expired' as const, last };
      }
      const misses = (await trx(MISSES).where({ orgId, emailNormalized }).where('createdAt', '>', new Date(now.getTime() - HOUR_MS))
        .select('requester', 'createdAt')) as Array<{ requester: string; createdAt: Date }>;
      const all = misses.map((m) => m.createdAt.getTime());
      const mine = misses.filter((m) => m.requester === requester).map((m) => m.createdAt.getTime());
      const wait = secondsUntil(now.getTime(), [all, mine], ([a, m]) => a < LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR || m === 0);
      if (wait > 0) return { kind: 'held' as const, wait };
      const right = this.crypto.constantTimeEqual(row.codeHash, this.hash(interactionUid, emailNormalized, code)) && row.endUserId !== null;
      if (right) {
        await trx(CODES).where({ id: row.id }).update({ consumedAt: now });
        return { kind: 'right' as const, endUserId: row.endUserId! };
      }
      const attempts = row.attempts + 1;
      await trx(CODES).where({ id: row.id }).update({ attempts, ...(attempts >= LOGIN_CODE_ATTEMPTS ? { consumedAt: now } : {}) });
      await trx(MISSES).insert({ id: randomUUID(), orgId, emailNormalized, requester, createdAt: now });
      const shared = LOGIN_CODE_MISSES_PER_ADDRESS_PER_HOUR - (all.length + 1);
      return { kind: 'wrong' as const, attemptsRemaining: Math.max(0, Math.min(LOGIN_CODE_ATTEMPTS - attempts, shared)), endUserId: row.endUserId };
    });
    const who = (endUserId: string | null, reason: 'invalid_code' | 'too_many_attempts' | 'expired_code') =>
      endUserId ? { reason, endUserId } : { reason: 'unknown_account' as const };
    if (outcome.kind === 'expired') {
      const { last } = outcome;
      if (!last) throw oidcErrors.codeExpired();
      throw refused(oidcErrors.codeExpired(), who(last.endUserId, last.attempts >= LOGIN_CODE_ATTEMPTS ? 'too_many_attempts' : 'expired_code'));
    }
    // Nothing was checked: a rate-limited request, not an attempt (docs/api/endusers.md "Sign-in events").
    if (outcome.kind === 'held') throw rateLimited(outcome.wait, 'RATE_LIMITED', 'Too many wrong codes for this address. Try again later, or sign in another way.');
    if (outcome.kind === 'wrong') throw refused(oidcErrors.codeInvalid(outcome.attemptsRemaining), who(outcome.endUserId, 'invalid_code'));
    return outcome.endUserId;
  }

  /** Deletes codes and wrong-code rows older than a day (their hour counts and lifetimes are long over). @returns how many codes */
  async purge(): Promise<number> {
    const dayAgo = new Date(this.clock.now().getTime() - 86_400_000);
    await this.db.knex(MISSES).where('createdAt', '<', dayAgo).delete();
    return this.db.knex(CODES).where('createdAt', '<', dayAgo).delete();
  }

  /** One code request or check per organization and address at a time, so the hourly counts hold under concurrency. */
  private async lock(trx: Knex.Transaction, orgId: string, emailNormalized: string): Promise<void> {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`oidc.login-code:${orgId}:${emailNormalized}`]);
  }

  private requesterOf(ip: string): string {
    return this.crypto.sha256Hex(`requester:${requesterNetwork(ip)}`);
  }

  private hash(interactionUid: string, emailNormalized: string, code: string): string {
    return this.crypto.sha256Hex(`${interactionUid}:${emailNormalized}:${code}`);
  }
}
