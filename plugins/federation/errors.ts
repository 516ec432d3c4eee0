import { aerieError, defineErrorCodes } from '../../core/index.ts';

/** The federation plugin's own error codes (documented in docs/api/federation.md). */
export const federationErrorCodes = defineErrorCodes('federation', {
  IDP_CONFIG_INVALID: { status: 400, description: 'the IdP connection payload breaks a rule (missing or conflicting members, a URL or certificate that is not usable)' },
  IDP_DISCOVERY_FAILED: { status: 400, description: "the discovery document or SAML metadata could not be fetched or read (the reason is given)" },
  IDP_SWITCH_REQUIRES_DEACTIVATION: { status: 409, description: 'another provider is active: deactivate it first, then configure the new one' },
  idp_not_configured: { status: 404, description: 'the organization has no active IdP connection (spec 01 writes this code in lower case)' },
  IDP_SIGNIN_FAILED: { status: 401, description: 'a sign-in through the IdP connection was refused (the reason is given)' },
});

type FederationErrorCodes = typeof federationErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends FederationErrorCodes {}
}

/** Errors of the federation plugin. */
export const federationErrors = {
  invalid: (field: string, message: string) => aerieError('IDP_CONFIG_INVALID', message, { field }),
  discovery: (field: string, reason: string) => aerieError('IDP_DISCOVERY_FAILED', `The ${field === 'saml_metadata_url' ? 'SAML metadata' : 'discovery document'} could not be used: ${reason}.`, { field, reason }),
  switchProvider: (active: string) => aerieError('IDP_SWITCH_REQUIRES_DEACTIVATION', `${active} is the active provider: deactivate it first, then configure the new one.`, { activeProvider: active }),
  notConfigured: () => aerieError('idp_not_configured', 'The organization has no active IdP connection.'),
  signinFailed: (reason: string) => aerieError('IDP_SIGNIN_FAILED', 'The sign-in through the identity provider was refused.', { reason }),
};
