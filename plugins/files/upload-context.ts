import { appGroupNotFound, type AppGroupDirectory } from '../keys/api.ts';
import type { MeetingDirectory } from './api.ts';
import { filesErrors } from './errors.ts';

/** Where a console upload is filed: its `scope` and the app group it was made for. */
export interface UploadContext {
  scope: string;
  appGroupId: string | null;
}

/**
 * Resolves `POST /api/org/{slug}/files?meetingId=&appGroupId=` before any byte is read: a meeting
 * of the organization the caller may file to (asked of the meetings plugin through
 * `files.meetings`) gives the scope `meeting:{meetingId}`; an app group of the organization (asked
 * of the apps plugin through `keys.appGroups`) is recorded on the file.
 * @param accountId - the caller as `uploaded_by` records it
 * @throws 404 `MEETING_NOT_FOUND` (`field: meetingId`, also with no meetings plugin), 400 `APP_GROUP_NOT_FOUND` (`field: appGroupId`)
 * @see docs/api/files.md "Console"
 */
export async function uploadContext(
  directories: { meetings: readonly MeetingDirectory[]; appGroups: readonly AppGroupDirectory[] },
  orgId: string, accountId: string, query: { meetingId?: string; appGroupId?: string },
): Promise<UploadContext> {
  if (query.meetingId !== undefined && !(await directories.meetings.at(-1)?.(orgId, query.meetingId, accountId))) throw filesErrors.meetingNotFound();
  if (query.appGroupId !== undefined && !(await directories.appGroups.at(-1)?.(orgId, query.appGroupId))) throw appGroupNotFound(query.appGroupId);
  return { scope: query.meetingId !== undefined ? `meeting:${query.meetingId}` : 'free', appGroupId: query.appGroupId ?? null };
}
