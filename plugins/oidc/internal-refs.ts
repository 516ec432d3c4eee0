import { createServiceRef } from '../../core/index.ts';
import type { AerieAccountSignIn } from './aerie-account.ts';
import type { EndUserConsents } from './end-user-consents.ts';
import type { EndUserPasskeys } from './end-user-passkeys.ts';
import type { HostedLogin } from './hosted-login.ts';
import type { LoginCodes } from './login-codes.ts';
import type { OwnerGate } from './owner-gate.ts';
import type { ProviderContext } from './provider-context.ts';
import type { OrgProviders } from './providers.ts';
import type { SdkSignIn } from './sdk-sign-in.ts';
import type { SocialConnections } from './social-connections.ts';
import type { SocialFlows } from './social-flows.ts';
import type { SocialSignIn } from './social-sign-in.ts';

/** The oidc plugin's configuration keys (`oidc.providerCacheSize`), injectable as `oidc.config`. */
export interface OidcConfig {
  oidc: { providerCacheSize: number };
}

/** Services internal to the oidc plugin (none is in an api.ts), registered in its `register`. */
export const oidcInternalRefs = {
  config: createServiceRef<OidcConfig>('oidc.config'),
  providerContext: createServiceRef<ProviderContext>('oidc.providerContext'),
  providers: createServiceRef<OrgProviders>('oidc.providers'),
  codes: createServiceRef<LoginCodes>('oidc.codes'),
  passkeys: createServiceRef<EndUserPasskeys>('oidc.passkeys'),
  consents: createServiceRef<EndUserConsents>('oidc.consents'),
  aerieAccount: createServiceRef<AerieAccountSignIn>('oidc.aerieAccount'),
  socialConnections: createServiceRef<SocialConnections>('oidc.socialConnections'),
  socialFlows: createServiceRef<SocialFlows>('oidc.socialFlows'),
  social: createServiceRef<SocialSignIn>('oidc.social'),
  login: createServiceRef<HostedLogin>('oidc.login'),
  sdk: createServiceRef<SdkSignIn>('oidc.sdk'),
  ownerGate: createServiceRef<OwnerGate>('oidc.ownerGate'),
};
