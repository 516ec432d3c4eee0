import { aerieError, defineErrorCodes, permissionDenied, validationFailed } from '../../core/index.ts';
import { memberErrors } from '../rbac/api.ts';

/** The approvals plugin's own error codes (documented in docs/api/approvals.md "Errors"). */
export const approvalsErrorCodes = defineErrorCodes('approvals', {
  FORM_NOT_FOUND: { status: 404, description: "unknown form (work item) or another organization's" },
  INSTANCE_NOT_FOUND: { status: 404, description: "unknown approval instance, another organization's, or one the caller takes no part in" },
  STEP_NOT_PENDING: { status: 409, description: 'the caller has no step of the instance awaiting their stamp (`instanceStatus`)' },
  REPORT_NOT_STAMPED: { status: 409, description: 'a `report` form is sent to recipients and takes no stamps' },
  APPROVAL_LINE_UNRESOLVED: { status: 409, description: 'a column of the line names nobody who can approve for this requester (`unresolved`: positions and labels); nothing is submitted' },
  ATTACHMENT_NOT_FOUND: { status: 404, description: "an attachment's `FileId` is not a live file of the organization that the requester uploaded (`field`, `fileId`)" },
  second_device_required: { status: 409, description: 'second-device confirmation is required and the approver has no passkey besides the one stamping (spec 02 writes this code in lower case)' },
  SECOND_DEVICE_REQUEST_NOT_FOUND: { status: 404, description: "unknown second-device request or link, another organization's, or another person's" },
  SECOND_DEVICE_LINK_EXPIRED: { status: 410, description: 'the second-device link is older than 10 minutes; stamp again' },
  SECOND_DEVICE_LINK_USED: { status: 409, description: 'the one-time second-device link was already used (`status`: `done`, `denied` or `refused`)' },
  SECOND_DEVICE_SAME_PASSKEY: { status: 409, description: 'the second device signed with the passkey that stamped on the computer; use another one' },
});

type ApprovalsErrorCodes = typeof approvalsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends ApprovalsErrorCodes {}
}

/** Errors of the approvals plugin. */
export const approvalsErrors = {
  ...memberErrors,
  formNotFound: (field?: string) => aerieError('FORM_NOT_FOUND', 'Form not found.', field ? { field } : {}),
  instanceNotFound: () => aerieError('INSTANCE_NOT_FOUND', 'Approval instance not found.'),
  stepNotPending: (instanceStatus: string) =>
    aerieError('STEP_NOT_PENDING', 'No step of this document awaits your stamp.', { instanceStatus }),
  lineUnresolved: (unresolved: ReadonlyArray<{ position: number; labelEn: string }>) =>
    aerieError('APPROVAL_LINE_UNRESOLVED', 'Nobody can approve one of the line\'s columns for you. Ask an administrator to fix the approval line.', { unresolved }),
  attachmentNotFound: (fileId: string) => aerieError('ATTACHMENT_NOT_FOUND', 'Attachment file not found.', { field: 'Attachments', fileId }),
  noAttachmentStore: () => validationFailed('Attachments given by FileId need the files plugin.', 'Attachments'),
  reportNotStamped: () => aerieError('REPORT_NOT_STAMPED', 'A report is sent to its recipients and takes no stamps.'),
  secondDeviceRequired: () =>
    aerieError('second_device_required', 'This organization requires confirmation on a second device, and you have no other passkey. Add a passkey on your phone first.'),
  secondDeviceNotFound: () => aerieError('SECOND_DEVICE_REQUEST_NOT_FOUND', 'Second-device request not found.'),
  secondDeviceExpired: () => aerieError('SECOND_DEVICE_LINK_EXPIRED', 'This confirmation link has expired. Stamp the document again.'),
  secondDeviceUsed: (status: string) => aerieError('SECOND_DEVICE_LINK_USED', 'This confirmation link was already used.', { status }),
  secondDeviceSamePasskey: () =>
    aerieError('SECOND_DEVICE_SAME_PASSKEY', 'Confirm with a passkey other than the one you stamped with.'),
  ownerOnlyTurnsOff: () => permissionDenied(undefined, 'Only the Owner may turn second-device confirmation off.'),
  settingsOwnerOrAdmin: () => permissionDenied(undefined, 'Only the Owner or an Admin may change approval settings.'),
  ownerOrAdmin: () => permissionDenied(undefined, 'Only the Owner or an Admin may change forms and approval lines.'),
  invalid: (message: string, field: string) => validationFailed(message, field),
};
