import { aerieError, defineErrorCodes, permissionDenied, validationFailed } from '../../core/index.ts';
import { memberErrors } from '../rbac/api.ts';

/**
 * The members plugin's own error codes (documented in docs/api/members.md). `MEMBER_NOT_FOUND`,
 * `MEMBER_NOT_ACTIVE` and `DIRECTOR_ORG_TYPE` are rbac's, which this plugin requires.
 */
export const membersErrorCodes = defineErrorCodes('members', {
  INVITATION_NOT_FOUND: { status: 404, description: "unknown, superseded or another organization's invitation or token" },
  INVITATION_EXPIRED: { status: 410, description: "the token's invitation expired" },
  INVITATION_NOT_PENDING: { status: 409, description: 'the invitation was accepted, declined or cancelled (`status`)' },
  INVITATION_PENDING: { status: 409, description: 'an open invitation for the address exists (`invitationId`)' },
  ALREADY_MEMBER: { status: 409, description: 'the person is an active or suspended member (`status`)' },
  INVITATION_EMAIL_MISMATCH: { status: 403, description: 'signed in with another address than the invited one' },
  ACCOUNT_EXISTS: { status: 409, description: 'accept-with-register for an address that has an account' },
  COMPANY_EMAIL_REQUIRED: { status: 400, description: 'a representative director without a verified-domain address' },
  OWNER_PROTECTED: { status: 409, description: "the organization's Owner cannot be changed this way" },
  MEMBER_REVOKED: { status: 409, description: 'the member was revoked; invite them again' },
});

type MembersErrorCodes = typeof membersErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends MembersErrorCodes {}
}

/** Errors of the members plugin. */
export const membersErrors = {
  ...memberErrors,
  invitationNotFound: () => aerieError('INVITATION_NOT_FOUND', 'No invitation matches this token or id.'),
  invitationExpired: () => aerieError('INVITATION_EXPIRED', 'The invitation expired. Ask for a new one.'),
  invitationNotPending: (status: string) => aerieError('INVITATION_NOT_PENDING', `The invitation was already ${status}.`, { status }),
  // Not the kernel's rateLimited(): that one also sets `Retry-After`, which this answer has never sent.
  resendTooSoon: (retryAfterSeconds: number) => aerieError('RATE_LIMITED', 'This invitation was just sent. Try again later.', { retryAfterSeconds }),
  invitationPending: (invitationId: string) =>
    aerieError('INVITATION_PENDING', 'An open invitation for this address exists; re-send it instead.', { invitationId }),
  alreadyMember: (status: string) => aerieError('ALREADY_MEMBER', `This person is already a member (${status}).`, { status }),
  emailMismatch: () =>
    aerieError('INVITATION_EMAIL_MISMATCH', 'The invitation was sent to another email address than the one you are signed in with.'),
  accountExists: () =>
    aerieError('ACCOUNT_EXISTS', 'An account with this email exists: sign in and accept the invitation instead.'),
  companyEmailRequired: () =>
    aerieError('COMPANY_EMAIL_REQUIRED', "A representative director needs an address on one of the organization's verified domains.", { field: 'Email' }),
  directorFieldsOnly: (field: string) => validationFailed(`${field} is only accepted for director roles.`, field),
  sealEmailMismatch: () =>
    aerieError('STEPUP_FAILED', 'The passkey seal was made by another account than SealEmail names.', { reason: 'other_account' }),
  ownerProtected: () => aerieError('OWNER_PROTECTED', "The organization's Owner cannot be changed this way."),
  memberRevoked: () => aerieError('MEMBER_REVOKED', 'The member was revoked; invite them again.'),
  /** No scope would help (the rule is about roles), so the body has `errorCode` and no `required`. */
  adminOnly: () => permissionDenied(undefined, 'Only an Owner or Admin can do this to an Admin or change roles.'),
  selfManager: () => validationFailed('A member cannot report to themselves.', 'ReportingManagerId'),
};
