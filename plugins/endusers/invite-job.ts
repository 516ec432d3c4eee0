/** The background job that mails invites: one per import request, create or re-send. @see docs/api/endusers.md "Invitations" */
export const SEND_INVITES_JOB = 'endusers.send-invites';

/** Its data: the end users to invite (those no longer `Pending` are skipped) and the app group named in the mail. */
export interface SendInvitesJob {
  orgId: string;
  appGroupId: string | null;
  endUserIds: string[];
}
