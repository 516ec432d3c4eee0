import { HOUR_MS, type Clock, type Database } from '../../core/index.ts';
import { EmailCodeModel } from './models/account.model.ts';
import { CodeMissModel } from './models/code-miss.model.ts';
import { WebauthnChallengeModel } from './models/passkey.model.ts';

/** The schedule that runs {@link sweepAccounts}, every 10 minutes. */
export const ACCOUNTS_SWEEP = 'accounts.sweep';

/**
 * Deletes what no check reads any more: wrong-code rows older than a day (the guessing budget counts
 * an hour), email codes that expired over a day ago (a used or superseded code answers "expired"
 * rather than counting as a wrong guess for that long), and WebAuthn challenges that expired over an
 * hour ago. @returns how many rows of each were deleted
 */
export async function sweepAccounts(db: Database, clock: Clock): Promise<{ codeMisses: number; emailCodes: number; challenges: number }> {
  const now = clock.now().getTime();
  return {
    codeMisses: await CodeMissModel.query(db.knex).where('createdAt', '<', new Date(now - 24 * HOUR_MS)).delete(),
    emailCodes: await EmailCodeModel.query(db.knex).where('expiresAt', '<', new Date(now - 24 * HOUR_MS)).delete(),
    challenges: await WebauthnChallengeModel.query(db.knex).where('expiresAt', '<', new Date(now - HOUR_MS)).delete(),
  };
}
