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

export const internalRefs = {
  emailCodes: createServiceRef<EmailCodesService>('accounts.emailCodes'),
  passkeys: createServiceRef<PasskeysRepository>('accounts.passkeys'),
  webauthnChallenges: createServiceRef<WebauthnChallengesService>('accounts.webauthnChallenges'),
  activityLog: createServiceRef<ActivityLogService>('accounts.activityLog'),
  passkeyRegistration: createServiceRef<PasskeyRegistrationService>('accounts.passkeyRegistration'),
  passkeySignIn: createServiceRef<PasskeySignInService>('accounts.passkeySignIn'),
};
