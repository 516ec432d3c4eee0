import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type Database } from '../../core/index.ts';
import { WebauthnChallengeModel } from './models/passkey.model.ts';
import { WEBAUTHN_CHALLENGE_TTL_SECONDS } from './relying-party.ts';

/** Why a presented challenge cannot be used. */
export type ChallengeProblem = 'unknown' | 'other_account' | 'replayed' | 'expired';

/**
 * Single-use WebAuthn challenges for passkey registration and passkey sign-in (5 minutes). A
 * challenge is looked up without changing it and consumed only after the ceremony verified,
 * in the transaction that records the result, with a conditional update (a replay or race fails).
 */
@injectable()
export class WebauthnChallengesService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Stores `challenge` (base64url) for `kind` (the `accounts.sweep` schedule deletes it an hour after it expired). */
  async issue(kind: WebauthnChallengeModel['kind'], accountId: string | null, challenge: string): Promise<void> {
    const now = this.clock.now();
    await WebauthnChallengeModel.query(this.db.knex).insert({
      id: randomUUID(), kind, accountId, challenge, createdAt: now, expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
    });
  }

  /**
   * The live challenge row, or why it is not usable. `accountId` must match for registration
   * challenges; sign-in challenges belong to nobody.
   */
  async find(kind: WebauthnChallengeModel['kind'], challenge: string | undefined, accountId: string | null): Promise<WebauthnChallengeModel | ChallengeProblem> {
    const row = challenge ? await WebauthnChallengeModel.query(this.db.knex).findOne({ kind, challenge }) : undefined;
    if (!row) return 'unknown';
    if (row.accountId !== accountId) return 'other_account';
    if (row.consumedAt) return 'replayed';
    if (new Date(row.expiresAt).getTime() <= this.clock.now().getTime()) return 'expired';
    return row;
  }

  /** Consumes the challenge in `trx` if still unused and unexpired. @returns true when this call consumed it. */
  async consume(id: string, trx: Knex.Transaction): Promise<boolean> {
    const now = this.clock.now();
    const n = await WebauthnChallengeModel.query(trx).findById(id).whereNull('consumedAt').where('expiresAt', '>', now).patch({ consumedAt: now });
    return n === 1;
  }
}
