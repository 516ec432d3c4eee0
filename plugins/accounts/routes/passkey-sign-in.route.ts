import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { route, type AerieConfig, type RouteDef } from '../../../core/index.ts';
import type { AccountsService } from '../service-interfaces.ts';
import { asWebAuthnJson } from '../relying-party.ts';
import type { PasskeySignInService } from '../passkey-sign-in.service.ts';
import { userAgentOf } from '../activity-log.service.ts';
import { assertSignInOrigin, sessionReply, type SessionMode } from '../session-reply.ts';
import { emptyBody } from '../schemas/empty.body.ts';
import { passkeySigninBody } from '../schemas/passkey-signin.body.ts';
import { optionsResponse, sessionResponse } from '../schemas/responses.ts';

/**
 * Passkey sign-in (discoverable credentials):
 * `POST /api/passkey/signin/options` → `{options}`;
 * `POST /api/passkey/signin {response, session?}` → the same answer as email-code verification
 * (`sessionToken`, or the session cookie and `csrfToken` with `session: 'cookie'`); 401
 * `PASSKEY_SIGNIN_FAILED` for any failure.
 * @see docs/api/accounts.md, docs/api/passkeys.md
 */
export function passkeySignInRoutes(config: AerieConfig, signIn: PasskeySignInService, accounts: AccountsService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/passkey/signin/options', auth: 'public', body: emptyBody,
      response: optionsResponse,
      summary: 'Options for signing in with a passkey', tags: ['passkeys'],
      handler: async () => ({ options: await signIn.options() }),
    }),
    route({
      method: 'POST', path: '/api/passkey/signin', auth: 'public', body: passkeySigninBody,
      response: sessionResponse,
      summary: 'Sign in with a passkey', tags: ['passkeys'],
      handler: async ({ body, request }) => {
        assertSignInOrigin(config, body.session, request);
        const { account, session } = await signIn.signIn(asWebAuthnJson<AuthenticationResponseJSON>(body.response), { cookie: body.session === 'cookie' }, { ip: request.ip, userAgent: userAgentOf(request.headers) });
        return sessionReply(config, body.session, session, { account: accounts.toDto(account) });
      },
    }),
  ];
}
