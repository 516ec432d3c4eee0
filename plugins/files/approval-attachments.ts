import type { Knex } from 'knex';
import type { AuditService } from '../../core/index.ts';
import type { AttachmentStore, StoredAttachment } from '../approvals/api.ts';
import { FILES_TABLE, type FileRow } from './file-row.ts';

/**
 * The file box as the approvals plugin's attachment store: the requester's own live files become
 * sealed attachments (`sealed: true`: never trashed again, 409 `sealed_attachment`; their `scope`
 * stays where they were created, as spec 02 fixes it), each audited as `org.file.sealed` in the
 * submit transaction.
 * @see docs/api/files.md "Approval attachments"
 */
export function approvalAttachments(audit: AuditService): AttachmentStore {
  return {
    async seal(trx: Knex.Transaction, orgId: string, accountId: string, fileIds: readonly string[], instanceId: string): Promise<StoredAttachment[]> {
      if (fileIds.length === 0) return [];
      const rows = (await trx(FILES_TABLE).where({ orgId, uploadedBy: accountId }).whereIn('id', [...fileIds]).whereNull('deletedAt')
        .update({ sealed: true }).returning('*')) as FileRow[];
      for (const row of rows) {
        await audit.append(trx, { orgId, eventType: 'org.file.sealed', businessData: { fileId: row.id, fileName: row.fileName, sha256: row.sha256, approvalInstanceId: instanceId } });
      }
      return rows.map((r) => ({ FileId: r.id, Name: r.fileName, Sha256: r.sha256, Size: Number(r.sizeBytes) }));
    },
  };
}
