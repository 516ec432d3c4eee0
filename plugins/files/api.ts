/**
 * The files plugin's public API: the extension point a meetings plugin answers, so console uploads
 * can be filed under a meeting (`POST /api/org/{slug}/files?meetingId=`).
 */
import { createExtensionPoint } from '../../core/index.ts';

/**
 * Answers whether `meetingId` is a meeting of `orgId` that the account `accountId` may file to.
 * With no contribution no meeting exists, and `?meetingId=` is 404 `MEETING_NOT_FOUND`.
 */
export type MeetingDirectory = (orgId: string, meetingId: string, accountId: string) => Promise<boolean>;

export const filesExtensions = {
  /** The last contribution is asked. */
  meetings: createExtensionPoint<MeetingDirectory>('files.meetings'),
};
