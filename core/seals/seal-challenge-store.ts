import type { Knex } from 'knex';
import type { SealField } from './binding.ts';

const TABLE = 'core.seal_challenges';

/** A row of `core.seal_challenges` (migrations/core/001_seal_challenges.ts). */
export interface SealChallengeRow {
  id: string;
  accountId: string;
  purpose: string;
  subject: string;
  /** base64url(SHA-256(canonical)). */
  challenge: string;
  canonical: string;
  binding: { nonce: string; fields: SealField[] };
  inputs: SealField[];
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}

/**
 * Storage of step-up challenges. Times come from the caller (`core.clock`), never from the
 * database, so tests move time with a manual clock.
 */
export class SealChallengeStore {
  constructor(private readonly knex: Knex) {}

  /** Stores a fresh challenge and drops the account's challenges that expired over an hour ago. */
  async insert(row: Omit<SealChallengeRow, 'consumedAt'>): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx(TABLE).where({ accountId: row.accountId }).where('expiresAt', '<', new Date(row.createdAt.getTime() - 3_600_000)).delete();
      await trx(TABLE).insert({ ...row, binding: JSON.stringify(row.binding), inputs: JSON.stringify(row.inputs) });
    });
  }

  /** The challenge row whose challenge is `challenge` (consumed or not), or `undefined`. */
  async findByChallenge(challenge: string): Promise<SealChallengeRow | undefined> {
    const row = (await this.knex(TABLE).where({ challenge }).first()) as SealChallengeRow | undefined;
    return row && { ...row, expiresAt: new Date(row.expiresAt), consumedAt: row.consumedAt && new Date(row.consumedAt) };
  }

  /**
   * Consumes the challenge in `trx` only if it is still unused and unexpired at `now`: one
   * conditional `UPDATE … RETURNING`, so of two racing requests exactly one wins.
   * @returns true when this call consumed it.
   */
  async consume(id: string, now: Date, trx: Knex.Transaction): Promise<boolean> {
    const rows = await trx(TABLE).where({ id }).whereNull('consumedAt').where('expiresAt', '>', now).update({ consumedAt: now }).returning('id');
    return rows.length === 1;
  }
}
