import { PermissionSet, permissionDenied, type GrantsProvider, type OrgContext, type Principal } from '../../core/index.ts';
import { filesErrors } from './errors.ts';
import type { FileRow } from './file-row.ts';

/** Everyone's files in the console (Owner and Admin hold it). */
export const LIST_ALL = 'org.org_file.list';
/** The caller's own files (every member holds it). */
export const LIST_OWN = 'org.org_file.list:creator=self';

/** Whose files a console caller reaches: `all`, or only those `self` uploaded. */
export interface FileVisibility {
  all: boolean;
  /** The caller as `uploaded_by` records it: the account id, or the credential id without one. */
  self: string;
}

/**
 * Resolves a console caller's reach: `all` when it holds `org.org_file.list` unconstrained; else its
 * own files, which every member reaches (members hold `org.org_file.list:creator=self`) and a
 * credential without membership (a machine token) only when it holds that scope.
 * @param grants - the kernel's grants provider (rbac when enabled, else orgs: Owner/Admin = all)
 * @throws 403 `PERMISSION_DENIED` (`required`) for a credential holding neither
 * @see docs/api/files.md "Console"
 */
export async function fileVisibility(principal: Principal, org: OrgContext, grants: GrantsProvider | undefined): Promise<FileVisibility> {
  const role = org.member?.role;
  const held = grants ? await grants(principal, org) : principal.scopes ?? (role === 'Owner' || role === 'Admin' ? 'all' : []);
  const set = held === 'all' ? undefined : new PermissionSet(held);
  const all = held === 'all' || set!.has(LIST_ALL);
  if (!all && !org.member && !set!.has(LIST_OWN)) throw permissionDenied(LIST_OWN);
  return { all, self: principal.accountId ?? principal.id };
}

/** `view=all` needs the unconstrained scope. @throws 403 `PERMISSION_DENIED` (`required: org.org_file.list`) */
export function assertSeesAll(visibility: FileVisibility): void {
  if (!visibility.all) throw permissionDenied(LIST_ALL);
}

/** A file outside the caller's reach looks absent. @throws 404 */
export function assertReaches(visibility: FileVisibility, file: Pick<FileRow, 'uploadedBy'> | undefined): void {
  if (!file || (!visibility.all && file.uploadedBy !== visibility.self)) throw filesErrors.fileNotFound();
}
