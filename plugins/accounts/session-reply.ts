import { reply, type AerieConfig, type Reply, type RequestInfo } from '../../core/index.ts';
import type { AccountDto } from './api.ts';
import { assertSameOrigin, setSessionCookie } from './cookie-session.auth.ts';

/** How a sign-in hands over its session: a bearer token in the body, or the session cookie. */
export type SessionMode = 'token' | 'cookie';

/**
 * Refuses a cookie-mode sign-in from a foreign origin (login CSRF): a cookie session may only be
 * planted by a page of one of `webauthn.origins`. Token mode is not affected.
 * @throws 403 `CSRF_FAILED`
 */
export function assertSignInOrigin(config: AerieConfig, mode: SessionMode, request: RequestInfo): void {
  if (mode === 'cookie') assertSameOrigin(config, request.headers);
}

/**
 * The sign-in answer. Token mode: `{sessionToken, expiresAt, account, …extra}`. Cookie mode:
 * `Set-Cookie` with the session token (never in the body) and `{csrfToken, expiresAt, account, …extra}`;
 * the page sends `csrfToken` as `X-CSRF-Token` on every write.
 */
export function sessionReply(
  config: AerieConfig,
  mode: SessionMode,
  session: { token: string; expiresAt: Date; absoluteTtlSeconds: number; csrfToken?: string },
  body: { account: AccountDto } & Record<string, unknown>,
): Reply {
  const expiresAt = session.expiresAt.toISOString();
  if (mode === 'cookie') {
    return reply(200, { csrfToken: session.csrfToken, expiresAt, ...body }, { 'set-cookie': setSessionCookie(config, session.token, session.absoluteTtlSeconds), 'cache-control': 'no-store' });
  }
  return reply(200, { sessionToken: session.token, expiresAt, ...body }, { 'cache-control': 'no-store' });
}
