import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type AerieConfig, type Clock, type CryptoService, type Database, type Principal } from '../../core/index.ts';
import { internalRefs, type AccountsConfig } from './internal-refs.ts';
import { AccountModel, SessionModel } from './models/account.model.ts';
import type { SessionRecord, SessionsService as SessionsServiceApi } from './service-interfaces.ts';

/** Sliding expiry is written at most this often per session (seconds), to keep reads cheap. */
const TOUCH_INTERVAL_SECONDS = 60;

/**
 * `accounts.sessions`: opaque 256-bit session tokens, stored as SHA-256, with a sliding idle expiry
 * (`session.idleTtlSeconds`) capped by an absolute one (`session.absoluteTtlSeconds`).
 */
@injectable()
export class SessionsService implements SessionsServiceApi {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(internalRefs.config.id) private readonly own: AccountsConfig,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.crypto.id) private readonly crypto: CryptoService,
  ) {}

  /**
   * Opens a session; the token is returned once and only its hash is kept. With `csrf` (cookie
   * sessions) a CSRF token is made as well, returned once and kept as SHA-256. With `orgId` it is an
   * organization session, reaching that organization only (docs/api/federation.md).
   */
  async create(
    accountId: string, meta: { userAgent?: string; ip?: string; csrf?: boolean; orgId?: string }, trx: Knex.Transaction,
  ): Promise<{ token: string; expiresAt: Date; absoluteTtlSeconds: number; csrfToken?: string }> {
    const token = this.crypto.randomToken(32);
    const csrfToken = meta.csrf ? this.crypto.randomToken(32) : undefined;
    const now = this.clock.now();
    const { idleTtlSeconds, absoluteTtlSeconds } = this.own.session;
    const expiresAt = new Date(now.getTime() + idleTtlSeconds * 1000);
    await SessionModel.query(trx).insert({
      id: randomUUID(), accountId, tokenHash: this.crypto.sha256Hex(token), createdAt: now, lastSeenAt: now, expiresAt,
      absoluteExpiresAt: new Date(now.getTime() + absoluteTtlSeconds * 1000), userAgent: meta.userAgent?.slice(0, 400) ?? null, ip: meta.ip ?? null,
      csrfTokenHash: csrfToken ? this.crypto.sha256Hex(csrfToken) : null, orgId: meta.orgId ?? null,
    });
    return { token, expiresAt, absoluteTtlSeconds, ...(csrfToken ? { csrfToken } : {}) };
  }

  /**
   * Whether `csrfToken` is the CSRF token of the session with this session token (constant-time;
   * false for bearer sessions, which have none). Reads only: a refused request changes nothing.
   */
  async csrfMatches(token: string, csrfToken: string): Promise<boolean> {
    const session = await SessionModel.query(this.db.knex).findOne({ tokenHash: this.crypto.sha256Hex(token) }).whereNull('revokedAt');
    return !!session?.csrfTokenHash && this.crypto.constantTimeEqual(session.csrfTokenHash, this.crypto.sha256Hex(csrfToken));
  }

  /**
   * The principal for a live session token presented as `kind`, or `null` (unknown, revoked or
   * expired, or a session of the other kind: a cookie session's token is no bearer token, and a
   * bearer session's token is no cookie). Slides the idle expiry forward, never past the absolute one.
   * An organization session, and any session of an account an organization's IdP made, answers
   * `sessionOrgId` and is never a platform administrator.
   */
  async authenticate(token: string, kind: 'bearer' | 'cookie'): Promise<Principal | null> {
    const now = this.clock.now();
    const session = await SessionModel.query(this.db.knex).findOne({ tokenHash: this.crypto.sha256Hex(token) }).whereNull('revokedAt');
    if (!session || session.expiresAt <= now || session.absoluteExpiresAt <= now) return null;
    if ((session.csrfTokenHash !== null) !== (kind === 'cookie')) return null;
    const account = await AccountModel.query(this.db.knex).findById(session.accountId);
    if (!account) return null;
    if (now.getTime() - new Date(session.lastSeenAt).getTime() > TOUCH_INTERVAL_SECONDS * 1000) {
      const slid = Math.min(now.getTime() + this.own.session.idleTtlSeconds * 1000, new Date(session.absoluteExpiresAt).getTime());
      await SessionModel.query(this.db.knex).findById(session.id).patch({ lastSeenAt: now, expiresAt: new Date(slid) });
    }
    const sessionOrgId = session.orgId ?? account.federatedOrgId ?? undefined;
    return {
      type: 'account', id: account.id, accountId: account.id, email: account.email, sessionId: session.id,
      platformAdmin: !sessionOrgId && this.config.platformAdmins.includes(account.email),
      ...(sessionOrgId ? { sessionOrgId } : {}),
    };
  }

  /** Ends a session (logout). Idempotent. */
  async revoke(sessionId: string): Promise<void> {
    await SessionModel.query(this.db.knex).findById(sessionId).whereNull('revokedAt').patch({ revokedAt: this.clock.now() });
  }

  /**
   * The live sessions of the accounts `accounts` selects (a query with an `account_id` column), most
   * recently seen first; `total` counts them all. Only display columns are read: never a hash.
   */
  async listLive(accounts: Knex.QueryBuilder, page: { offset: number; limit: number }): Promise<{ items: SessionRecord[]; total: number }> {
    const now = this.clock.now();
    const live = SessionModel.query(this.db.knex)
      .join(`${AccountModel.tableName} as a`, 'a.id', 'sessions.accountId')
      .whereRaw('sessions.account_id in (select m.account_id from (?) m)', [accounts])
      .whereNull('sessions.revokedAt').where('sessions.expiresAt', '>', now).where('sessions.absoluteExpiresAt', '>', now);
    const total = await live.clone().resultSize();
    const rows = await live
      .select('sessions.id', 'sessions.accountId', 'a.email', 'a.displayName', 'sessions.createdAt', 'sessions.lastSeenAt', 'sessions.expiresAt',
        'sessions.absoluteExpiresAt', 'sessions.userAgent', 'sessions.ip')
      .orderBy('sessions.lastSeenAt', 'desc').orderBy('sessions.id').offset(page.offset).limit(page.limit)
      .castTo<Array<SessionRecord>>();
    return { total, items: rows.map((r) => ({ ...r, displayName: r.displayName ?? null, userAgent: r.userAgent ?? null, ip: r.ip ?? null })) };
  }
}
