import { aerieError, defineErrorCodes, notFound, validationFailed } from '../../core/index.ts';

/** The endusers plugin's own error codes (documented in docs/api/endusers.md). */
export const endUsersErrorCodes = defineErrorCodes('endusers', {
  END_USER_EXISTS: { status: 409, description: 'an end user with this email (NFC, case-insensitive) exists in the organization (`endUserId`)' },
  END_USER_STATUS_CONFLICT: { status: 409, description: "the end user's status does not allow this transition (`status`)" },
  INVITE_INVALID: { status: 400, description: 'unknown or replaced invite token' },
  INVITE_USED: { status: 410, description: 'the invite token was already used' },
  INVITE_EXPIRED: { status: 410, description: 'the invite token expired; ask for a new invitation' },
});

type EndUsersErrorCodes = typeof endUsersErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends EndUsersErrorCodes {}
}

/** Errors of the endusers plugin. */
export const endUsersErrors = {
  endUserNotFound: () => notFound('End user not found.'),
  accessNotFound: () => notFound('The end user has no access to this app group.'),
  /** The body names an app group this organization does not have. */
  unknownAppGroup: () => validationFailed('No such app group in this organization.', 'appGroupId'),
  /** A single create's email or display name breaks the row rules of an import. */
  invalidRow: (field: 'email' | 'displayName') => validationFailed(`${field} is not valid.`, field),
  endUserExists: (endUserId: string) => aerieError('END_USER_EXISTS', 'An end user with this email exists.', { endUserId }),
  statusConflict: (status: string, action: string) =>
    aerieError('END_USER_STATUS_CONFLICT', `An end user in status ${status} cannot be ${action}.`, { status }),
  /** `permissions` breaks the rules of docs/api/endusers.md "Permissions". */
  invalidPermissions: (message: string) => validationFailed(message, 'permissions'),
  inviteInvalid: () => aerieError('INVITE_INVALID', 'This invite token is not valid.'),
  inviteUsed: () => aerieError('INVITE_USED', 'This invite token was already used.'),
  inviteExpired: () => aerieError('INVITE_EXPIRED', 'This invite token expired. Ask for a new invitation.'),
};
