import { reply, route, type Database, type EventBus, type RouteDef } from '../../../core/index.ts';
import type { AccountsService } from '../accounts.service.ts';
import type { EmailCodesService } from '../email-codes.service.ts';
import type { SessionsService } from '../sessions.service.ts';

interface Deps {
  db: Database;
  events: EventBus;
  accounts: AccountsService;
  sessions: SessionsService;
  codes: EmailCodesService;
}

/**
 * `POST /api/v1/users/registration/email` mails a 6-digit code (202, the same answer whether or not
 * the account exists); `POST /api/v1/users/verification/email` checks it and answers
 * `{ sessionToken, expiresAt, account, created }`, creating the account on first verification.
 * @see spec 01 "Account (`/api/v1/users`)"
 */
export function emailSignInRoutes({ db, events, accounts, sessions, codes }: Deps): RouteDef[] {
  return [
    route<{ email: string; displayName?: string }>({
      method: 'POST', path: '/api/v1/users/registration/email', auth: 'public', body: 'accounts/registration-email.body',
      summary: 'Mail a 6-digit sign-in code', tags: ['accounts'],
      handler: async ({ body }) => {
        const email = body.email.toLowerCase();
        const { expiresInSeconds } = await codes.issue(email, body.displayName?.trim() ?? null);
        return reply(202, { sent: true, email, expiresInSeconds });
      },
    }),
    route<{ email: string; code: string }>({
      method: 'POST', path: '/api/v1/users/verification/email', auth: 'public', body: 'accounts/verification-email.body',
      summary: 'Verify the code and open a session', tags: ['accounts'],
      handler: async ({ body, request }) => {
        const email = body.email.toLowerCase();
        const result = await db.transaction(async (trx) => {
          const check = await codes.consume(email, body.code, trx);
          if (!check.ok) return check;
          const { account, created } = await accounts.ensureVerified(email, check.displayName, trx);
          const ua = request.headers['user-agent'];
          const session = await sessions.create(account.id, { userAgent: typeof ua === 'string' ? ua : undefined, ip: request.ip }, trx);
          return { ok: true as const, account, created, session };
        });
        if (!result.ok) throw result.error;
        events.emit({ type: result.created ? 'account.registered' : 'account.signed_in', payload: { accountId: result.account.id } });
        return {
          sessionToken: result.session.token,
          expiresAt: result.session.expiresAt.toISOString(),
          created: result.created,
          account: accounts.toDto(result.account),
        };
      },
    }),
  ];
}
