import { aerieError, defineErrorCodes, notFound, permissionDenied, stepUpRequired, unauthorized, validationFailed } from '../../core/index.ts';

/** The keys plugin's own error codes (documented in docs/api/keys.md). */
export const keysErrorCodes = defineErrorCodes('keys', {
  APP_GROUP_NOT_FOUND: { status: 400, description: 'the new key names an app group this organization does not have' },
  SERVICE_ACCOUNT_NOT_FOUND: { status: 400, description: 'the new key names no active service account of this organization' },
});

type KeysErrorCodes = typeof keysErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends KeysErrorCodes {}
}

/** Errors of the keys plugin. */
/** 400 `APP_GROUP_NOT_FOUND` (`field: appGroupId`): the id names no app group of this organization (keys, file uploads). */
export const appGroupNotFound = (appGroupId: string) =>
  aerieError('APP_GROUP_NOT_FOUND', `No app group ${appGroupId} in this organization.`, { field: 'appGroupId' });

export const keysErrors = {
  /** Unknown, malformed or revoked API key, or a key of another organization. */
  invalidApiKey: () => unauthorized('The API key is not valid for this organization.'),
  /** `scope` asked for more than the key holds. @see docs/api/keys.md */
  scopeNotHeld: (refused: string[]) => permissionDenied(refused[0], `The key does not hold ${refused.join(', ')}.`, { refused }),
  /** A new key may only hold scopes its creator holds. */
  grantNotHeld: (scope: string) => permissionDenied(scope, `You cannot give a key ${scope}: you do not hold it.`),
  invalidScope: (scope: string) => validationFailed(`"${scope}" is not a scope expression.`, 'scopes'),
  /** A ceiling above 300 s is for the organization owner. @see docs/api/keys.md */
  ownerOnlyLongLifetime: () =>
    permissionDenied('owner', 'Only the organization owner may issue a key whose tokens live longer than 300 seconds.'),
  /** Passkey seal needed (purpose `api_key.long_lifetime`). */
  stepUpRequired: () => stepUpRequired('api_key.long_lifetime'),
  ownerOrAdminOnly: (required: string) => permissionDenied(required, 'Only the organization owner or an admin may do this.'),
  /** App-group-scoped credential on an organization-wide endpoint. @see docs/api/accounts.md */
  organizationWideKeyRequired: () => unauthorized('This endpoint needs an organization-wide key; an app-group-scoped key cannot use it.'),
  apiKeyNotFound: () => notFound('API key not found.'),
  /** Unknown slug, or an organization without signing keys. */
  organizationNotFound: () => notFound('Organization not found.'),
  appGroupNotFound,
  serviceAccountNotFound: (serviceAccountId: string) =>
    aerieError('SERVICE_ACCOUNT_NOT_FOUND', `No active service account ${serviceAccountId} in this organization.`, { field: 'serviceAccountId' }),
  /** The key's service account is suspended or revoked. @see docs/api/keys.md */
  serviceAccountInactive: () => unauthorized('The service account of this key is suspended or revoked.'),
};
