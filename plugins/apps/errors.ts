import { aerieError, defineErrorCodes, notFound, payloadTooLarge, permissionDenied, validationFailed } from '../../core/index.ts';

/** The apps plugin's own error codes (documented in docs/api/apps.md). */
export const appsErrorCodes = defineErrorCodes('apps', {
  CLIENT_CONFIG_INVALID: { status: 400, description: "an application's client configuration breaks a rule of its kind (grant type, auth method, PKCE) or its SAML registration is not https" },
  ICON_TYPE_UNSUPPORTED: { status: 400, description: 'an uploaded app-group icon is not a PNG, JPEG, WebP or SVG image (read from its bytes)' },
  APP_NOT_ON_MARKETPLACE: { status: 404, description: 'installing an app group that is unknown or not listed on the marketplace' },
  OWN_APP: { status: 400, description: "installing one's own app group" },
  RP_ID_INVALID: { status: 400, description: "an app group's passkey RP ID is neither the service's host nor a registrable suffix of one of its redirect hosts" },
});

type AppsErrorCodes = typeof appsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends AppsErrorCodes {}
}

/** Errors of the apps plugin. */
export const appsErrors = {
  appGroupNotFound: () => notFound('App group not found.'),
  applicationNotFound: () => notFound('Application not found.'),
  /** The body names an app group this organization does not have. */
  unknownAppGroup: () => validationFailed('No such app group in this organization.', 'appGroupId'),
  /** `monetizationEnabled: true` is the Owner's decision. @see docs/api/apps.md */
  monetizationOwnerOnly: () => permissionDenied(undefined, 'Only the organization owner may enable monetization.'),
  /** A redirect URI breaks the exact-match rules. @see docs/api/apps.md */
  invalidRedirectUri: (field: string, uri: string, why: string) => validationFailed(`${JSON.stringify(uri)} is not an allowed redirect URI: ${why}.`, field),
  /** A cross-field rule of the client configuration. @see docs/api/apps.md */
  clientConfigInvalid: (field: string, message: string) => aerieError('CLIENT_CONFIG_INVALID', message, { field }),
  /** A passkey RP ID the group may not use. @see docs/api/apps.md */
  rpIdInvalid: (rpId: string, why: string) => aerieError('RP_ID_INVALID', `${JSON.stringify(rpId)} cannot be this group's passkey RP ID: ${why}.`, { field: 'passkeyRpId' }),
  /** The uploaded bytes are none of the accepted image types. @see docs/api/apps.md */
  notOnMarketplace: () => aerieError('APP_NOT_ON_MARKETPLACE', 'This app group is not on the marketplace.'),
  ownApp: () => aerieError('OWN_APP', "An organization does not install its own app group: it has it already."),
  iconTypeUnsupported: () => aerieError('ICON_TYPE_UNSUPPORTED', 'An icon must be a PNG, JPEG, WebP or SVG image.'),
  /** A cleaned SVG that grew past the icon limit. */
  iconTooLarge: (limitBytes: number) => payloadTooLarge(limitBytes, 'An icon is'),
  /** No uploaded icon for that public key. */
  iconNotFound: () => notFound('Icon not found.'),
  /** Only confidential clients have a secret. */
  publicClientHasNoSecret: () => aerieError('CLIENT_CONFIG_INVALID', 'A public client (Spa, Native) has no secret to rotate.', { field: 'kind' }),
};
