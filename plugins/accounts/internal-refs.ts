/**
 * Service refs private to the accounts plugin (other plugins use `api.ts`). Kept apart from
 * `index.ts` so services can name them in `@inject` without an import cycle.
 */
import { createServiceRef } from '../../core/index.ts';
import type { EmailCodesService } from './email-codes.service.ts';
import type { PasskeysRepository } from './passkeys.repository.ts';
import type { WebauthnChallengesService } from './webauthn-challenges.service.ts';
import type { ActivityLogService } from './activity-log.service.ts';
import type { PasskeyRegistrationService } from './passkey-registration.service.ts';
import type { PasskeySignInService } from './passkey-sign-in.service.ts';

/** The keys the accounts plugin owns in the configuration (`config.schema.json`), validated. */
export interface AccountsConfig {
  /** Session lifetimes in seconds: sliding idle expiry, capped by the absolute one. */
  session: { idleTtlSeconds: number; absoluteTtlSeconds: number };
}

export const internalRefs = {
  /** Registered by the kernel from the plugin's validated configuration keys. */
  config: createServiceRef<AccountsConfig>('accounts.config'),
  emailCodes: createServiceRef<EmailCodesService>('accounts.emailCodes'),
  passkeys: createServiceRef<PasskeysRepository>('accounts.passkeys'),
  webauthnChallenges: createServiceRef<WebauthnChallengesService>('accounts.webauthnChallenges'),
  activityLog: createServiceRef<ActivityLogService>('accounts.activityLog'),
  passkeyRegistration: createServiceRef<PasskeyRegistrationService>('accounts.passkeyRegistration'),
  passkeySignIn: createServiceRef<PasskeySignInService>('accounts.passkeySignIn'),
};
