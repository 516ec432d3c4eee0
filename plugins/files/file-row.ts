/** `files.files` and `files.org_storage`, as knex answers them (camelCase). */
export const FILES_TABLE = 'files.files';
export const STORAGE_TABLE = 'files.org_storage';

export type ShareMode = 'restricted' | 'link_anyone';

export interface FileRow {
  id: string;
  orgId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  blobKey: string;
  scope: string;
  shareMode: ShareMode;
  shareToken: string;
  sealed: boolean;
  uploadedBy: string;
  uploadedAt: Date;
  deletedAt: Date | null;
  /** Upload, download link or share view, whichever was last (null: never since upload); lifecycle rules count from it. */
  lastAccessedAt?: Date | null;
  /** `STANDARD`, or `STANDARD_IA` once a `transition_ia` rule moved it. */
  storageClass?: string;
  /** The app group a console upload was made for (`?appGroupId=`). */
  appGroupId?: string | null;
}

/** A file as the API answers it. @see docs/api/files.md "File" */
export interface FileDto {
  id: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uploadedAt: string;
  deletedAt: string | null;
  scope: string;
  shareMode: ShareMode;
  shareToken: string;
  appGroupId: string | null;
}

export function toFileDto(row: FileRow): FileDto {
  return {
    id: row.id, fileName: row.fileName, contentType: row.contentType, sizeBytes: Number(row.sizeBytes), sha256: row.sha256,
    uploadedAt: row.uploadedAt.toISOString(), deletedAt: row.deletedAt?.toISOString() ?? null, scope: row.scope,
    shareMode: row.shareMode, shareToken: row.shareToken, appGroupId: row.appGroupId ?? null,
  };
}

/** The blob key of a file's bytes. */
export function fileBlobKey(orgId: string, fileId: string): string {
  return `org/${orgId}/files/${fileId}`;
}
