import { AerieError, permissionDenied, unauthorized } from '../../core/index.ts';

/** Error codes of the keys plugin (documented in docs/api/keys.md). */
export const keysErrors = {
  /** Unknown, malformed or revoked API key, or a key of another organization. */
  invalidApiKey: () => unauthorized('The API key is not valid for this organization.'),
  /** `scope` asked for more than the key holds. @see spec 01 "Machine token rules" 1 */
  scopeNotHeld: (refused: string[]) =>
    new AerieError(403, 'PERMISSION_DENIED', `The key does not hold ${refused.join(', ')}.`, { errorCode: 'PERMISSION_DENIED', required: refused[0], refused }),
  /** A new key may only hold scopes its creator holds. */
  grantNotHeld: (scope: string) => permissionDenied(scope, `You cannot give a key ${scope}: you do not hold it.`),
  invalidScope: (scope: string) => new AerieError(400, 'VALIDATION_FAILED', `"${scope}" is not a scope expression.`, { field: 'scopes' }),
  /** A ceiling above 300 s is for the organization owner. @see spec 01 "Machine token rules" 4 */
  ownerOnlyLongLifetime: () =>
    new AerieError(403, 'PERMISSION_DENIED', 'Only the organization owner may issue a key whose tokens live longer than 300 seconds.', {
      errorCode: 'PERMISSION_DENIED', required: 'owner',
    }),
  /** Passkey seal needed (purpose `api_key.long_lifetime`). */
  stepUpRequired: () => unauthorized('This action needs a passkey seal.', 'STEPUP_REQUIRED', { purpose: 'api_key.long_lifetime' }),
  ownerOrAdminOnly: (required: string) => permissionDenied(required, 'Only the organization owner or an admin may do this.'),
  /** App-group-scoped credential on an organization-wide endpoint. @see spec 01 "Authentication" */
  organizationWideKeyRequired: () => unauthorized('This endpoint needs an organization-wide key; an app-group-scoped key cannot use it.'),
  apiKeyNotFound: () => new AerieError(404, 'NOT_FOUND', 'API key not found.'),
  appGroupNotFound: (appGroupId: string) =>
    new AerieError(400, 'APP_GROUP_NOT_FOUND', `No app group ${appGroupId} in this organization.`, { field: 'appGroupId' }),
  serviceAccountNotFound: (serviceAccountId: string) =>
    new AerieError(400, 'SERVICE_ACCOUNT_NOT_FOUND', `No active service account ${serviceAccountId} in this organization.`, { field: 'serviceAccountId' }),
  /** The key's service account is suspended or revoked. @see spec 01 "Machine token rules" 6 */
  serviceAccountInactive: () => unauthorized('The service account of this key is suspended or revoked.'),
};
