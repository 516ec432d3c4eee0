import { aerieError, defineErrorCodes, permissionDenied, validationFailed } from '../../core/index.ts';
import { memberErrors } from '../rbac/api.ts';

/** The approvals plugin's own error codes (documented in docs/api/approvals.md "Errors"). */
export const approvalsErrorCodes = defineErrorCodes('approvals', {
  FORM_NOT_FOUND: { status: 404, description: "unknown form (work item) or another organization's" },
  INSTANCE_NOT_FOUND: { status: 404, description: "unknown approval instance, another organization's, or one the caller takes no part in" },
  STEP_NOT_PENDING: { status: 409, description: 'the caller has no step of the instance awaiting their stamp (`instanceStatus`)' },
  REPORT_NOT_STAMPED: { status: 409, description: 'a `report` form is sent to recipients and takes no stamps' },
  ATTACHMENT_NOT_FOUND: { status: 404, description: "an attachment's `FileId` is not a live file of the organization that the requester uploaded (`field`, `fileId`)" },
});

type ApprovalsErrorCodes = typeof approvalsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends ApprovalsErrorCodes {}
}

/** Errors of the approvals plugin. */
export const approvalsErrors = {
  ...memberErrors,
  roleNotFound: (field: string) => aerieError('ROLE_NOT_FOUND', 'Role not found.', { field }),
  formNotFound: (field?: string) => aerieError('FORM_NOT_FOUND', 'Form not found.', field ? { field } : {}),
  instanceNotFound: () => aerieError('INSTANCE_NOT_FOUND', 'Approval instance not found.'),
  stepNotPending: (instanceStatus: string) =>
    aerieError('STEP_NOT_PENDING', 'No step of this document awaits your stamp.', { instanceStatus }),
  attachmentNotFound: (fileId: string) => aerieError('ATTACHMENT_NOT_FOUND', 'Attachment file not found.', { field: 'Attachments', fileId }),
  noAttachmentStore: () => validationFailed('Attachments given by FileId need the files plugin.', 'Attachments'),
  reportNotStamped: () => aerieError('REPORT_NOT_STAMPED', 'A report is sent to its recipients and takes no stamps.'),
  ownerOrAdmin: () => permissionDenied(undefined, 'Only the Owner or an Admin may change forms and approval lines.'),
  invalid: (message: string, field: string) => validationFailed(message, field),
};
