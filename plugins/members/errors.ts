import { AerieError, conflict, notFound, unauthorized } from '../../core/index.ts';

/** Error codes of the members plugin (documented in docs/api/members.md). */
export const membersErrors = {
  memberNotFound: (field?: string) => new AerieError(404, 'MEMBER_NOT_FOUND', 'Member not found.', field ? { field } : {}),
  invitationNotFound: () => notFound('No invitation matches this token or id.', 'INVITATION_NOT_FOUND'),
  invitationExpired: () => new AerieError(410, 'INVITATION_EXPIRED', 'The invitation expired. Ask for a new one.'),
  invitationNotPending: (status: string) => conflict(`The invitation was already ${status}.`, 'INVITATION_NOT_PENDING', { status }),
  resendTooSoon: (retryAfterSeconds: number) =>
    new AerieError(429, 'RATE_LIMITED', 'This invitation was just sent. Try again later.', { retryAfterSeconds }),
  invitationPending: (invitationId: string) =>
    conflict('An open invitation for this address exists; re-send it instead.', 'INVITATION_PENDING', { invitationId }),
  alreadyMember: (status: string) => conflict(`This person is already a member (${status}).`, 'ALREADY_MEMBER', { status }),
  emailMismatch: () =>
    new AerieError(403, 'INVITATION_EMAIL_MISMATCH', 'The invitation was sent to another email address than the one you are signed in with.'),
  accountExists: () =>
    conflict('An account with this email exists: sign in and accept the invitation instead.', 'ACCOUNT_EXISTS'),
  directorOrgType: (orgType: string) =>
    new AerieError(400, 'DIRECTOR_ORG_TYPE', 'Directors can only be invited to Corporation and Project organizations.', { field: 'RoleId', orgType }),
  companyEmailRequired: () =>
    new AerieError(400, 'COMPANY_EMAIL_REQUIRED', "A representative director needs an address on one of the organization's verified domains.", { field: 'Email' }),
  directorFieldsOnly: (field: string) =>
    new AerieError(400, 'VALIDATION_FAILED', `${field} is only accepted for director roles.`, { field }),
  sealEmailMismatch: () =>
    unauthorized('The passkey seal was made by another account than SealEmail names.', 'STEPUP_FAILED', { reason: 'other_account' }),
  ownerProtected: () => conflict("The organization's Owner cannot be changed this way.", 'OWNER_PROTECTED'),
  memberRevoked: () => conflict('The member was revoked; invite them again.', 'MEMBER_REVOKED'),
  memberNotActive: (status: string) => conflict(`The member is ${status}.`, 'MEMBER_NOT_ACTIVE', { status }),
  adminOnly: () => new AerieError(403, 'PERMISSION_DENIED', 'Only an Owner or Admin can do this to an Admin or change roles.', { errorCode: 'PERMISSION_DENIED' }),
  selfManager: () => new AerieError(400, 'VALIDATION_FAILED', 'A member cannot report to themselves.', { field: 'ReportingManagerId' }),
};
