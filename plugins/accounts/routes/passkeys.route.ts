import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { route, type RouteDef } from '../../../core/index.ts';
import { asWebAuthnJson } from '../relying-party.ts';
import type { PasskeyRegistrationService } from '../passkey-registration.service.ts';
import type { PasskeysRepository } from '../passkeys.repository.ts';
import { userAgentOf } from '../activity-log.service.ts';
import { credentialIdParams } from '../schemas/credential-id.params.ts';
import { emptyBody } from '../schemas/empty.body.ts';
import { passkeyAddBody } from '../schemas/passkey-add.body.ts';
import { optionsResponse, passkeyListResponse, passkeyResponse } from '../schemas/responses.ts';

/** Bearer session (API clients) or cookie session with CSRF (Aerie's own pages). */
export const SIGNED_IN = ['session', 'cookieSession'] as const;

/**
 * The signed-in person's passkeys:
 * `POST /api/passkey/add/options` → `{options}` (WebAuthn creation options, challenge valid 5 minutes);
 * `POST /api/passkey/add {response, name?}` → 201 `{passkey}` and a security mail;
 * `GET /api/passkey/list` → `{passkeys}`;
 * `DELETE /api/passkey/{credentialId}` → 204 and a security mail (404 `PASSKEY_NOT_FOUND` for others' keys).
 * @see docs/audit.md (`api/passkey/add`), docs/api/passkeys.md
 */
export function passkeyRoutes(registration: PasskeyRegistrationService, passkeys: PasskeysRepository): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/passkey/add/options', auth: SIGNED_IN, body: emptyBody,
      response: optionsResponse,
      summary: 'Registration options for a new passkey', tags: ['passkeys'],
      handler: async ({ principal }) => ({ options: await registration.options(principal.accountId) }),
    }),
    route({
      method: 'POST', path: '/api/passkey/add', auth: SIGNED_IN, body: passkeyAddBody, status: 201,
      response: passkeyResponse,
      summary: 'Register a passkey (mails a security notice)', tags: ['passkeys'],
      handler: async ({ principal, body, request }) => ({
        passkey: await registration.add(principal.accountId, { ...body, response: asWebAuthnJson<RegistrationResponseJSON>(body.response) }, { ip: request.ip, userAgent: userAgentOf(request.headers) }),
      }),
    }),
    route({
      method: 'GET', path: '/api/passkey/list', auth: SIGNED_IN,
      response: passkeyListResponse,
      summary: "The signed-in account's passkeys", tags: ['passkeys'],
      handler: async ({ principal }) => ({ passkeys: await passkeys.list(principal.accountId) }),
    }),
    route({
      method: 'DELETE', path: '/api/passkey/{credentialId}', auth: SIGNED_IN, params: credentialIdParams,
      response: { 204: null },
      summary: 'Remove a passkey (mails a security notice)', tags: ['passkeys'],
      handler: async ({ principal, params, request }) => {
        await registration.remove(principal.accountId, params.credentialId, { ip: request.ip, userAgent: userAgentOf(request.headers) });
      },
    }),
  ];
}
