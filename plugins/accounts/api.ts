/**
 * The accounts plugin's public API: service refs and types other plugins may import.
 * (A plugin imports only another plugin's `api.ts`, never its other files.)
 */
import { createExtensionPoint, createServiceRef } from '../../core/index.ts';
import type { AccountsService, SessionsService, PersonalSealsService } from './service-interfaces.ts';

export type { AccountsService, SessionsService, PersonalSealsService, AccountRecord, SessionRecord } from './service-interfaces.ts';

export type { PersonalSealDto } from './personal-seals.service.ts';

/** An account as clients see it. */
export interface AccountDto {
  id: string;
  email: string;
  displayName: string | null;
  emailVerified: boolean;
  platformAdmin: boolean;
  /** Only on an account an organization's IdP or SCIM made: that organization's id. */
  federatedOrgId?: string;
  createdAt: string;
}

export const accountsRefs = {
  accounts: createServiceRef<AccountsService>('accounts.accounts'),
  sessions: createServiceRef<SessionsService>('accounts.sessions'),
  /** Personal seals: `hasPersonalSeal(accountId)` is the owner's half of an organization's `ready`. */
  personalSeals: createServiceRef<PersonalSealsService>('accounts.personalSeals'),
};

/**
 * Contributes fields to `GET /api/v1/users/me` (e.g. orgs adds `organizations`). Called with the
 * account id; the returned object is merged into the response.
 */
export type MeContributor = (accountId: string) => Promise<Record<string, unknown>>;

export const accountsExtensions = {
  me: createExtensionPoint<MeContributor>('accounts.me'),
};

/**
 * The cookie session: `setSessionCookie(config, token, maxAgeSeconds)` is the `Set-Cookie` value a
 * sign-in answers with (open the session with `sessions.create(…, { csrf: true })`), as passkey and
 * email-code sign-in do in cookie mode; the federation plugin's IdP callbacks use it too.
 * @see docs/api/accounts.md
 */
export { setSessionCookie } from './cookie-session.auth.ts';

/** Shared response schema other plugins reference (`schemaRef`): an account as answered to its owner. */
export { account as accountSchema } from './schemas/responses.ts';

/**
 * WebAuthn helpers other plugins' pages share (the oidc plugin's end-user passkeys): the browser
 * bundle of @simplewebauthn/browser, the members of a WebAuthn response a route schema checks, and
 * the challenge a client answered.
 */
export { clientDataChallenge, webauthnBundlePath } from './relying-party.ts';
export { webauthnResponseFields } from './schemas/webauthn-response.ts';
