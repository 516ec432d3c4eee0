import { reply, route, type AerieConfig, type Database, type EventBus, type RouteDef } from '../../../core/index.ts';
import type { AccountsService } from '../service-interfaces.ts';
import type { EmailCodesService } from '../email-codes.service.ts';
import type { SessionsService } from '../service-interfaces.ts';
import { ACTIVITY, userAgentOf, type ActivityLogService } from '../activity-log.service.ts';
import { assertSignInOrigin, sessionReply, type SessionMode } from '../session-reply.ts';
import { registrationEmailBody } from '../schemas/registration-email.body.ts';
import { verificationEmailBody } from '../schemas/verification-email.body.ts';
import { registrationEmailResponse, sessionResponse } from '../schemas/responses.ts';
import { accountsErrors } from '../errors.ts';

interface Deps {
  config: AerieConfig;
  db: Database;
  events: EventBus;
  accounts: AccountsService;
  sessions: SessionsService;
  codes: EmailCodesService;
  activity: ActivityLogService;
}

/**
 * `POST /api/v1/users/registration/email` mails a 6-digit code (202, the same answer whether or not
 * the account exists); `POST /api/v1/users/verification/email` checks it — against the codes the
 * same requester (IPv4 address, IPv6 /64) asked for — and answers
 * `{ sessionToken, expiresAt, account, created }`, creating the account on first verification; with
 * `session: 'cookie'` (the built-in pages) it sets the session cookie and answers `csrfToken` instead
 * of the token. Every sign-in writes an `auth.login` row to the account activity log.
 * @see docs/api/accounts.md
 */
export function emailSignInRoutes({ config, db, events, accounts, sessions, codes, activity }: Deps): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/users/registration/email', auth: 'public', body: registrationEmailBody,
      response: { 202: registrationEmailResponse },
      summary: 'Mail a 6-digit sign-in code', tags: ['accounts'],
      handler: async ({ body, request }) => {
        const email = body.email.toLowerCase();
        const { expiresInSeconds } = await codes.issue(email, body.displayName?.trim() ?? null, request.ip);
        return reply(202, { sent: true, email, expiresInSeconds });
      },
    }),
    route({
      method: 'POST', path: '/api/v1/users/verification/email', auth: 'public', body: verificationEmailBody,
      response: sessionResponse,
      summary: 'Verify the code and open a session', tags: ['accounts'],
      handler: async ({ body, request }) => {
        const email = body.email.toLowerCase();
        assertSignInOrigin(config, body.session, request);
        await codes.admit(request.ip);
        const result = await db.transaction(async (trx) => {
          const check = await codes.consume(email, body.code, request.ip, trx);
          if (!check.ok) return check;
          const { account, created } = await accounts.ensureVerified(email, check.displayName, trx);
          const meta = { userAgent: userAgentOf(request.headers), ip: request.ip };
          const session = await sessions.create(account.id, { ...meta, csrf: body.session === 'cookie' }, trx);
          await activity.record(trx, { accountId: account.id, eventType: ACTIVITY.login, method: 'email_code', ...meta });
          return { ok: true as const, account, created, session };
        });
        if (!result.ok) throw accountsErrors.invalidCode(result.attemptsRemaining);
        events.emit({ type: result.created ? 'account.registered' : 'account.signed_in', payload: { accountId: result.account.id } });
        return sessionReply(config, body.session, result.session, { created: result.created, account: accounts.toDto(result.account) });
      },
    }),
  ];
}
