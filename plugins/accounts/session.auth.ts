import type { AuthScheme } from '../../core/index.ts';
import type { SessionsService } from './service-interfaces.ts';

const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The `session` auth scheme: `Authorization: Bearer <session token>`. Tokens of other kinds (API keys
 * `ah_live_…`, JWTs) are left to their own schemes.
 * @see docs/api/accounts.md
 */
export function sessionAuthScheme(sessions: SessionsService): AuthScheme {
  return {
    name: 'session',
    openapi: { type: 'http', scheme: 'bearer', bearerFormat: 'opaque session token', description: '`Authorization: Bearer <sessionToken>`: the 43-character token a sign-in answers (email code or passkey).' },
    async authenticate(req) {
      const header = req.headers.authorization;
      const match = typeof header === 'string' ? /^Bearer (\S+)$/i.exec(header) : null;
      if (!match || !SESSION_TOKEN.test(match[1])) return null;
      return sessions.authenticate(match[1], 'bearer');
    },
  };
}
