import { permissionDenied, type AuthzService, type OrgContext, type Principal } from '../../core/index.ts';
import { filesErrors } from './errors.ts';
import type { FileRow } from './file-row.ts';

/** Everyone's files in the console (Owner and Admin hold it). */
export const LIST_ALL = 'org.org_file.list';

/** Whose files a console caller reaches: `all`, or only those `self` uploaded. */
export interface FileVisibility {
  all: boolean;
  /** The caller as `uploaded_by` records it: the account id, or the credential id without one. */
  self: string;
}

/**
 * Resolves a console caller's reach: `all` when it holds `org.org_file.list` unconstrained; else its
 * own uploads, which every caller reaches (members hold `org.org_file.list:creator=self`; a machine
 * token reaches what it uploaded itself).
 * @param authz - `core.authz`
 * @see docs/api/files.md "Console"
 */
export async function fileVisibility(principal: Principal, org: OrgContext, authz: AuthzService): Promise<FileVisibility> {
  return { all: await authz.holds(principal, org, LIST_ALL), self: principal.accountId ?? principal.id };
}

/** `view=all` needs the unconstrained scope. @throws 403 `PERMISSION_DENIED` (`required: org.org_file.list`) */
export function assertSeesAll(visibility: FileVisibility): void {
  if (!visibility.all) throw permissionDenied(LIST_ALL);
}

/** A file outside the caller's reach looks absent. @throws 404 */
export function assertReaches(visibility: FileVisibility, file: Pick<FileRow, 'uploadedBy'> | undefined): void {
  if (!file || (!visibility.all && file.uploadedBy !== visibility.self)) throw filesErrors.fileNotFound();
}
