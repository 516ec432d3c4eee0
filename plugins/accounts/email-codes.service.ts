import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type CryptoService, type Database, type Mailer } from '../../core/index.ts';
import { EmailCodeModel } from './models/account.model.ts';
import { accountsErrors } from './errors.ts';

/** A code is valid this long (seconds). */
export const CODE_TTL_SECONDS = 600;
/** Wrong attempts allowed per code; the next attempt is refused even with the right code. */
export const CODE_MAX_ATTEMPTS = 5;
/** Codes that may be requested per email per hour. */
export const CODES_PER_HOUR = 5;

/**
 * One-time 6-digit email codes for registration and sign-in: valid 10 minutes, 5 attempts, stored
 * as SHA-256 of `email:code`; a new code supersedes the previous one.
 */
@injectable()
export class EmailCodesService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
    @inject(coreRefs.mail.id) private readonly mail: Mailer,
  ) {}

  /**
   * Issues a code and mails it. @throws 429 `RATE_LIMITED` past `CODES_PER_HOUR` codes for the email.
   * @returns the code's lifetime in seconds.
   */
  async issue(email: string, displayName: string | null): Promise<{ expiresInSeconds: number }> {
    const now = this.clock.now();
    const code = this.crypto.randomDigits(6);
    await this.db.transaction(async (trx) => {
      const hourAgo = new Date(now.getTime() - 3600_000);
      const recent = await EmailCodeModel.query(trx).where({ email }).where('createdAt', '>', hourAgo).orderBy('createdAt', 'asc');
      if (recent.length >= CODES_PER_HOUR) {
        const retry = Math.ceil((new Date(recent[0].createdAt).getTime() + 3600_000 - now.getTime()) / 1000);
        throw accountsErrors.tooManyCodes(Math.max(retry, 1));
      }
      await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt').patch({ consumedAt: now });
      await EmailCodeModel.query(trx).insert({
        id: randomUUID(), email, codeHash: this.hash(email, code), displayName, attempts: 0,
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
   * Checks a code inside the caller's transaction and consumes it when right. A wrong code is
   * counted and reported as a result, not thrown, so the caller commits the count before refusing.
   * @returns `{ ok: true, displayName }` or `{ ok: false, error }` (400 `INVALID_CODE`).
   * @throws 400 `CODE_EXPIRED` (none live, or `code` is a superseded or used one), 429
   * `TOO_MANY_ATTEMPTS` (5 wrong attempts already).
   */
  async consume(email: string, code: string, trx: Knex.Transaction): Promise<{ ok: true; displayName: string | null } | { ok: false; error: Error }> {
    const now = this.clock.now();
    const row = await EmailCodeModel.query(trx).where({ email }).whereNull('consumedAt').orderBy('createdAt', 'desc').forUpdate().first();
    if (!row || row.expiresAt <= now) throw accountsErrors.codeExpired();
    if (row.attempts >= CODE_MAX_ATTEMPTS) throw accountsErrors.tooManyAttempts();
    const hash = this.hash(email, code);
    if (!this.crypto.constantTimeEqual(row.codeHash, hash)) {
      // A code this email was sent before (superseded by a newer one, or already used) is expired,
      // not a wrong guess: say so, and do not spend an attempt of the live code on it.
      const earlier = await EmailCodeModel.query(trx).where({ email, codeHash: hash }).whereNotNull('consumedAt').first();
      if (earlier) throw accountsErrors.codeExpired();
      await EmailCodeModel.query(trx).findById(row.id).patch({ attempts: row.attempts + 1 });
      return { ok: false, error: accountsErrors.invalidCode(CODE_MAX_ATTEMPTS - row.attempts - 1) };
    }
    await EmailCodeModel.query(trx).findById(row.id).patch({ consumedAt: now });
    return { ok: true, displayName: row.displayName };
  }

  private hash(email: string, code: string): string {
    return this.crypto.sha256Hex(`${email}:${code}`);
  }
}
