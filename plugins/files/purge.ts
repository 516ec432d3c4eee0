import type { AuditService, BlobStore, Clock, Database, JobDefinition, JobsService } from '../../core/index.ts';
import { FILES_TABLE, type FileRow } from './file-row.ts';
import type { StorageService } from './storage.service.ts';

/** The job that removes a trashed file for good once its retention window has passed. */
export const PURGE_JOB = 'files.purge';

export interface PurgeData {
  orgId: string;
  fileId: string;
}

const DAY_MS = 86_400_000;

/**
 * `files.purge`, queued by each trash for the end of its window. It judges the file as it is when it
 * runs: gone or live again (restored) → nothing to do; trashed but not yet due (trashed again later,
 * or the plan changed) → queued again for the remaining time; due → the bytes leave the blob store,
 * then the row goes and `org.file.purged` is audited. Every step may run twice without harm.
 */
export function purgeJob(deps: { db: Database; blob: BlobStore; clock: Clock; audit: AuditService; jobs: JobsService; storage: StorageService }): JobDefinition<PurgeData> {
  return {
    name: PURGE_JOB,
    handler: async ({ data: { orgId, fileId } }) => {
      const file = await deps.db.knex<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).whereNotNull('deletedAt').first();
      if (!file?.deletedAt) return;
      const { retentionDays } = await deps.storage.planLimits(orgId);
      const dueMs = file.deletedAt.getTime() + retentionDays * DAY_MS - deps.clock.now().getTime();
      if (dueMs > 0) {
        await deps.jobs.send(PURGE_JOB, { orgId, fileId }, { startAfterSeconds: Math.ceil(dueMs / 1000) });
        return;
      }
      await deps.blob.delete(file.blobKey);
      await deps.db.transaction(async (trx) => {
        const removed = await trx(FILES_TABLE).where({ orgId, id: fileId }).whereNotNull('deletedAt').delete();
        if (removed) await deps.audit.append(trx, { orgId, eventType: 'org.file.purged', businessData: { fileId, fileName: file.fileName, sizeBytes: Number(file.sizeBytes) } });
      });
    },
  };
}
