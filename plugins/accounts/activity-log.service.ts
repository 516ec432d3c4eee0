import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Clock, type Database } from '../../core/index.ts';
import { ActivityLogModel } from './models/passkey.model.ts';
import { shortFingerprint } from './relying-party.ts';

/** Event types of the account activity log. @see docs/audit.md */
export const ACTIVITY = {
  login: 'auth.login',
  passkeyRegistered: 'seal.lifecycle.registered',
  passkeyRevoked: 'seal.lifecycle.revoked',
} as const;

/** A row of `GET /api/auth/activity-log`. `keyId` and `keyFingerprint` are null on non-passkey rows. */
export interface ActivityDto {
  id: string;
  eventType: string;
  /** Sign-in method of `auth.login` rows: `email_code` or `passkey`. */
  method: string | null;
  keyId: string | null;
  /** First 16 hex characters of SHA-256 over the credential public key. */
  keyFingerprint: string | null;
  ip: string | null;
  userAgent: string | null;
  occurredAt: string;
}

/** Where a request came from, as the activity log records it. */
export interface RequestMeta {
  ip?: string;
  userAgent?: string;
}

/** What one activity row records; `key` is set on passkey rows. */
export interface ActivityInput extends RequestMeta {
  accountId: string;
  eventType: string;
  method?: string;
  key?: { credentialId: string; fingerprint: string };
}

/** The account activity log: sign-ins and passkey lifecycle, newest first. @see docs/audit.md */
@injectable()
export class ActivityLogService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
  ) {}

  /** Records a row in the caller's transaction (so it commits with the change it describes). */
  async record(trx: Knex.Transaction, input: ActivityInput): Promise<void> {
    await ActivityLogModel.query(trx).insert({
      id: randomUUID(), accountId: input.accountId, eventType: input.eventType, method: input.method ?? null,
      keyId: input.key?.credentialId ?? null, keyFingerprint: input.key ? shortFingerprint(input.key.fingerprint) : null,
      ip: input.ip ?? null, userAgent: input.userAgent?.slice(0, 400) ?? null, occurredAt: this.clock.now(),
    });
  }

  /** The newest `limit` rows of an account. */
  async list(accountId: string, limit: number): Promise<ActivityDto[]> {
    const rows = await ActivityLogModel.query(this.db.knex).where({ accountId })
      .orderBy('seq', 'desc').limit(limit);
    return rows.map((r) => ({
      id: r.id, eventType: r.eventType, method: r.method, keyId: r.keyId, keyFingerprint: r.keyFingerprint,
      ip: r.ip, userAgent: r.userAgent, occurredAt: new Date(r.occurredAt).toISOString(),
    }));
  }
}

/** The user agent of a request as text (first value), or undefined. */
export function userAgentOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const ua = headers['user-agent'];
  return typeof ua === 'string' ? ua : undefined;
}
