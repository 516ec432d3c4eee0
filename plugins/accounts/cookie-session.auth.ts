import type { AerieConfig, AuthScheme } from '../../core/index.ts';
import type { SessionsService } from './service-interfaces.ts';
import { accountsErrors } from './errors.ts';

const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session cookie: `__Host-aerie_session` with `Secure` when the base URL is https, plain
 * `aerie_session` on http (local development); always `HttpOnly`, `SameSite=Lax`, `Path=/`, no `Domain`.
 */
export function sessionCookie(config: AerieConfig): { name: string; secure: boolean } {
  const secure = new URL(config.baseUrl).protocol === 'https:';
  return { name: secure ? '__Host-aerie_session' : 'aerie_session', secure };
}

/**
 * `Set-Cookie` value carrying a session token; lives as long as the session's absolute lifetime.
 * @param maxAgeSeconds - the session's absolute lifetime (`session.absoluteTtlSeconds`).
 */
export function setSessionCookie(config: AerieConfig, token: string, maxAgeSeconds: number): string {
  const { name, secure } = sessionCookie(config);
  return `${name}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** `Set-Cookie` value that removes the session cookie. */
export function clearSessionCookie(config: AerieConfig): string {
  const { name, secure } = sessionCookie(config);
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * Refuses a request whose `Origin` (or, without one, `Referer` origin) is not one of
 * `webauthn.origins`. @throws 403 `CSRF_FAILED` (`reason: 'origin'`)
 */
export function assertSameOrigin(config: AerieConfig, headers: Record<string, string | string[] | undefined>): void {
  let origin = typeof headers.origin === 'string' ? headers.origin : undefined;
  if (!origin && typeof headers.referer === 'string') {
    try {
      origin = new URL(headers.referer).origin;
    } catch {
      origin = undefined;
    }
  }
  if (!origin || !config.webauthn.origins.includes(origin)) throw accountsErrors.csrfFailed('origin');
}

/**
 * The `cookieSession` auth scheme, for the pages Aerie serves itself (`/account/security`).
 *
 * Enforces (docs/api/accounts.md, cookie session row):
 * - the session token comes from the session cookie only (never from a header or the URL);
 * - every non-GET request must come from one of `webauthn.origins` (`Origin`, else `Referer`) and
 *   carry the session's CSRF token in `X-CSRF-Token` — otherwise 403 `CSRF_FAILED`, checked before
 *   the session is touched, so a refused request changes nothing.
 */
export function cookieSessionAuthScheme(sessions: SessionsService, config: AerieConfig): AuthScheme {
  const { name } = sessionCookie(config);
  return {
    name: 'cookieSession',
    cookie: true,
    orgRoutesWith: 'session',
    openapi: { type: 'apiKey', in: 'cookie', name, description: 'The session cookie set by sign-in on the pages Aerie serves (HttpOnly). Requests other than GET also need the `csrfToken` header and an allowed `Origin`.' },
    openapiOnWrites: { csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: "The session's CSRF token, required with the session cookie on every request other than GET (403 `CSRF_FAILED` otherwise)." } },
    async authenticate(req) {
      const token = req.cookie(name);
      if (!token || !SESSION_TOKEN.test(token)) return null;
      if (!SAFE_METHODS.has(req.method.toUpperCase())) {
        assertSameOrigin(config, req.headers);
        const csrf = req.headers['x-csrf-token'];
        if (typeof csrf !== 'string' || csrf.length === 0 || !(await sessions.csrfMatches(token, csrf))) throw accountsErrors.csrfFailed('token');
      }
      return sessions.authenticate(token, 'cookie');
    },
  };
}
