import { aerieError, defineErrorCodes, notFound, permissionDenied } from '../../core/index.ts';

/** The files plugin's own error codes, lowercase as the file box has always answered them (documented in docs/api/files.md). */
export const filesErrorCodes = defineErrorCodes('files', {
  multipart_form_required: { status: 400, description: 'an upload whose body is not multipart/form-data' },
  no_file: { status: 400, description: 'a multipart upload without a part named `file`' },
  file_name_invalid: { status: 400, description: "the file part's name holds a control character (CR, LF, …) in its header, which a form cannot carry raw: send it percent-encoded (`filename*=UTF-8''…`)" },
  file_too_large: { status: 400, description: 'an uploaded file past `limitBytes` (10 MiB); nothing is stored' },
  storage_quota_exceeded: { status: 403, description: "the upload or restore does not fit the plan's storage (`usedBytes`, `limitBytes`)" },
  invalid_mode: { status: 400, description: 'a share mode other than `restricted` or `link_anyone`' },
  external_sharing_disabled: { status: 409, description: 'the organization blocks link sharing' },
  sealed_attachment: { status: 409, description: 'the file is an attachment of a sealed approval document and cannot be trashed' },
  plan_upgrade_required: { status: 403, description: 'a lifecycle rule write the plan does not allow; `feature` (`lifecycle`, `lifecycle_rules` with `limit` and `used`, `lifecycle_custom`)' },
  invalid_action: { status: 400, description: 'a lifecycle rule action other than `transition_ia` or `trash`' },
  invalid_days: { status: 400, description: 'a lifecycle rule `unaccessedDays` that is not an integer from 30 to 3650' },
  invalid_scope: { status: 400, description: 'a lifecycle rule scope other than all files, `free`, `notification` or `project:{id}`' },
  MEETING_NOT_FOUND: { status: 404, description: 'a console upload for a meeting the organization does not have, or the caller may not file to (`field: meetingId`)' },
});

type FilesErrorCodes = typeof filesErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends FilesErrorCodes {}
}

/** Errors of the files plugin. @see docs/api/files.md "Errors" */
export const filesErrors = {
  multipartFormRequired: () => aerieError('multipart_form_required', 'Send the file as multipart/form-data with a part named "file".'),
  noFile: () => aerieError('no_file', 'The form has no part named "file".'),
  fileNameInvalid: () => aerieError('file_name_invalid',
    'The file name is refused: it holds a control character (CR, LF, …) the part\'s header cannot carry. Send it percent-encoded (filename*=UTF-8\'\'…) or without them.', { field: 'file' }),
  fileTooLarge: (limitBytes: number) => aerieError('file_too_large', `A file is limited to ${limitBytes} bytes.`, { limitBytes }),
  quotaExceeded: (usedBytes: number, limitBytes: number) =>
    aerieError('storage_quota_exceeded', "The file does not fit the organization's storage.", { usedBytes, limitBytes }),
  invalidMode: () => aerieError('invalid_mode', 'mode must be "restricted" or "link_anyone".'),
  externalSharingDisabled: () => aerieError('external_sharing_disabled', 'This organization does not allow link sharing.'),
  meetingNotFound: () => aerieError('MEETING_NOT_FOUND', 'Meeting not found.', { field: 'meetingId' }),
  sealedAttachment: () => aerieError('sealed_attachment', 'This file is attached to a sealed approval document and cannot be trashed.'),
  planUpgradeRequired: (feature: 'lifecycle' | 'lifecycle_custom') =>
    aerieError('plan_upgrade_required', feature === 'lifecycle' ? "Lifecycle rules are not part of this organization's plan." : 'This plan allows only the preset rule (transition_ia after 90 days, all files).', { feature }),
  tooManyRules: (limit: number, used: number) =>
    aerieError('plan_upgrade_required', `An organization has at most ${limit} lifecycle rules.`, { feature: 'lifecycle_rules', limit, used }),
  invalidAction: () => aerieError('invalid_action', 'action must be "transition_ia" or "trash".'),
  invalidDays: () => aerieError('invalid_days', 'unaccessedDays must be an integer from 30 to 3650.'),
  invalidScope: () => aerieError('invalid_scope', 'scope must be omitted (all files), "free", "notification" or "project:{id}".'),
  /** A lifecycle rule id the organization does not have. */
  ruleNotFound: () => notFound('Lifecycle rule not found.'),
  /** Unknown, another organization's, or trashed where a live file is needed (or live where trashed is). */
  fileNotFound: () => notFound('File not found.'),
  /** A share token no file has (never issued, rotated away, or the file is trashed or gone). */
  shareNotFound: () => notFound('This share link does not exist.'),
  /** The token is the file's, but the file is not shared now. */
  shareClosed: () => permissionDenied(undefined, 'This file is not shared.'),
};
