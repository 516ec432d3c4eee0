/**
 * `core.rateLimits`: fixed-window counters that hold across every Aerie process sharing the
 * database — rate-limiter-flexible's PostgreSQL store on `core.rate_limits`, through the kernel's
 * driver (a PostgreSQL server or embedded PGlite alike).
 * @see docs/api/errors.md (`RATE_LIMITED`), docs/api/accounts.md "Limits"
 */
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';
import { aerieError, type AerieError } from '../errors.ts';
import type { ErrorCode } from '../error-codes.ts';

/** A limit: at most `points` per `durationSeconds` window per key. `name` prefixes its keys (`a-z0-9.-`). */
export interface RateLimitSpec {
  name: string;
  points: number;
  durationSeconds: number;
}

/** What is left of a key's window: `remaining` points, and seconds until the window resets. */
export interface RateLimitState {
  remaining: number;
  resetSeconds: number;
}

/** One limit's counters. */
export interface RateLimiter {
  /**
   * Spends `points` (default 1) of `key`'s window.
   * @returns what is left after spending.
   * @throws AerieError 429 with `code` (default `RATE_LIMITED`), `retryAfterSeconds` and a
   *   `Retry-After` header when the window has fewer than `points` left (nothing is spent then
   *   beyond the refused request itself).
   */
  consume(key: string, options?: { points?: number; code?: ErrorCode; message?: string }): Promise<RateLimitState>;
  /** What is left of `key`'s window, without spending. */
  peek(key: string): Promise<RateLimitState>;
  /** Forgets `key`'s window (e.g. a new code resets its wrong-guess count). */
  reset(key: string): Promise<void>;
}

/** `core.rateLimits`. */
export interface RateLimitService {
  /** A limiter for `spec`; limiters with the same name share counters. */
  limiter(spec: RateLimitSpec): RateLimiter;
}

/**
 * 429 `RATE_LIMITED` (or another registered 429 code, e.g. `TOO_MANY_ATTEMPTS`) with
 * `retryAfterSeconds` and the `Retry-After` header.
 * @param seconds - until the window resets; rounded up, at least 1.
 */
export function rateLimited(seconds: number, code: ErrorCode = 'RATE_LIMITED', message = 'Too many requests; try again later.'): AerieError {
  const retryAfterSeconds = Math.max(1, Math.ceil(seconds));
  const err = aerieError(code, message, { retryAfterSeconds });
  err.headers['Retry-After'] = String(retryAfterSeconds);
  return err;
}

/** {@link RateLimitService} over the kernel database. */
export class PostgresRateLimits implements RateLimitService {
  private readonly storeClient: { query(q: { text: string; values?: unknown[] }): Promise<unknown> };

  constructor(db: Database) {
    this.storeClient = { query: (q) => db.driverQuery(q.text, q.values) };
  }

  limiter(spec: RateLimitSpec): RateLimiter {
    if (!/^[a-z0-9.-]{1,40}$/.test(spec.name)) throw new Error(`rate limit name "${spec.name}" must be 1-40 of a-z 0-9 . -`);
    const store = new RateLimiterPostgres({
      storeClient: this.storeClient, storeType: 'pool', schemaName: 'core', tableName: 'rate_limits', tableCreated: true,
      keyPrefix: spec.name, points: spec.points, duration: spec.durationSeconds, clearExpiredByTimeout: false,
    });
    // Keys are hashed: an email and an IP address would not always fit the 255-character key column.
    const hashed = (key: string) => createHash('sha256').update(key).digest('base64url');
    const state = (res: RateLimiterRes | null): RateLimitState => ({
      remaining: res ? Math.max(0, res.remainingPoints) : spec.points,
      resetSeconds: res ? Math.ceil(res.msBeforeNext / 1000) : 0,
    });
    return {
      consume: async (key, options = {}) => {
        try {
          return state(await store.consume(hashed(key), options.points ?? 1));
        } catch (err) {
          if (err instanceof RateLimiterRes) throw rateLimited(err.msBeforeNext / 1000, options.code, options.message);
          throw err;
        }
      },
      peek: async (key) => state(await store.get(hashed(key))),
      reset: async (key) => {
        await store.delete(hashed(key));
      },
    };
  }
}
