/**
 * The approvals plugin's public API: the extension point through which a file store keeps the
 * attachments of approval documents (the files plugin contributes the file box).
 */
import type { Knex } from 'knex';
import { createExtensionPoint } from '../../core/index.ts';

/** A stored file taken as an attachment: its manifest entry (what the stamp signs) and its file id. */
export interface StoredAttachment {
  FileId: string;
  Name: string;
  /** Lowercase hex SHA-256 of the stored bytes. */
  Sha256: string;
  /** Bytes. */
  Size: number;
}

/** Where a document's attachments live. @see docs/api/approvals.md "Attachments" */
export interface AttachmentStore {
  /**
   * Seals the files `fileIds` of `orgId` that `accountId` uploaded and that are not in the trash, as
   * attachments of the approval document `instanceId`, inside the submit transaction: from then on
   * they can be trashed neither by a person nor by a lifecycle rule. Files that do not qualify are
   * left out of the answer (the caller refuses the submit).
   * @returns the sealed files' manifest entries, in any order
   */
  seal(trx: Knex.Transaction, orgId: string, accountId: string, fileIds: readonly string[], instanceId: string): Promise<StoredAttachment[]>;
}

export const approvalsExtensions = {
  /** The file store attachments given by `FileId` are taken from (the last contribution wins). */
  attachmentStore: createExtensionPoint<AttachmentStore>('approvals.attachmentStore'),
};
