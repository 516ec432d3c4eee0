import { aerieError, defineErrorCodes, notFound, permissionDenied } from '../../core/index.ts';

/** The notifications plugin's own error codes (documented in docs/api/notifications.md). */
export const notificationsErrorCodes = defineErrorCodes('notifications', {
  ATTACHMENT_ALREADY_SENT: { status: 409, description: 'an attachment named in `attachmentIds` was already sent with another announcement (upload it again)' },
});

type NotificationsErrorCodes = typeof notificationsErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends NotificationsErrorCodes {}
}

/** Errors of the notifications plugin. */
export const notificationsErrors = {
  /** Unknown, deleted, or another account's: existence never leaks. */
  notificationNotFound: () => notFound('Notification not found.'),
  /** Unknown organization, or the caller is not an active member of it. */
  orgNotFound: () => notFound('Organization not found.'),
  /** Unknown, another organization's, or not the caller's to download. */
  attachmentNotFound: () => notFound('Attachment not found.'),
  /** Announcements and attachments are for the organization's Owner or Admin. */
  ownerOrAdminOnly: () => permissionDenied(undefined, "Only the organization's Owner or an Admin may do this."),
  /** A membership id of `recipientConnectedIds` is not an active membership of the organization (another organization's included). */
  unknownRecipient: () => notFound('No active member with one of these recipientConnectedIds.'),
  /** An attachment belongs to one announcement. */
  attachmentAlreadySent: () => aerieError('ATTACHMENT_ALREADY_SENT', 'An attachment is sent with one announcement; upload it again.', { field: 'attachmentIds' }),
};
