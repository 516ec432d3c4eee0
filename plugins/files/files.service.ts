import { randomUUID } from 'node:crypto';
import {
  BlobTooLargeError, coreRefs, inject, injectable, type AuditService, type BlobStore, type Clock, type Database, type JobsService, type UploadedFile, isUuid,
} from '../../core/index.ts';
import { filesErrors } from './errors.ts';
import { storedContentType } from './content-type.ts';
import { sanitizeFileName } from './file-name.ts';
import { sniffMediaType } from './sniff.ts';
import { FILES_TABLE, fileBlobKey, toFileDto, type FileDto, type FileRow } from './file-row.ts';
import { MAX_FILE_BYTES } from './plans.ts';
import { PURGE_JOB } from './purge.ts';
import { filesRefs } from './internal-refs.ts';
import type { StorageService } from './storage.service.ts';
import type { UploadContext } from './upload-context.ts';

/** Seconds a download URL works. */
export const DOWNLOAD_URL_SECONDS = 600;
const DAY_MS = 86_400_000;
// file-type reads at most this many leading bytes to recognise a format.
const SNIFF_BYTES = 4100;

/** `GET /files` query. */
export interface ListQuery {
  /** Only files this principal uploaded (the console's own view). */
  uploadedBy?: string;
  /** Only files uploaded for this app group (console). */
  appGroupId?: string;
  /** Only files of this meeting (console). */
  meetingId?: string;
  trashed?: boolean;
  q?: string;
  page?: number;
  pageSize?: number;
}

/**
 * The file box of an organization: uploads streamed into core.blob (hashed and counted on the way,
 * cut at {@link MAX_FILE_BYTES}), then the quota reserved, the row written and the upload audited in
 * one transaction (the bytes are removed again when that fails); trash releases usage at once and
 * queues the purge; restore reserves again. Ids of other organizations look absent (404).
 * @see docs/api/files.md
 */
@injectable()
export class FilesService {
  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.jobs.id) private readonly jobs: JobsService,
    @inject(filesRefs.storage.id) private readonly storage: StorageService,
  ) {}

  /**
   * Stores an uploaded file as it streams (`part.stream` fails past 10 MiB with `file_too_large`,
   * as the route's `upload` declares; the blob limit stands behind it).
   * @throws 400 `file_too_large` (`limitBytes`) past 10 MiB; 403 `storage_quota_exceeded`; nothing is kept either way.
   */
  async upload(orgId: string, uploadedBy: string, part: UploadedFile, context: UploadContext = { scope: 'free', appGroupId: null }): Promise<FileDto> {
    const id = randomUUID();
    const key = fileBlobKey(orgId, id);
    const { mediaType, body } = await sniffMediaType(part.stream, SNIFF_BYTES);
    const contentType = storedContentType(mediaType, part.contentType);
    const stored = await this.blob.put(key, body, { maxBytes: MAX_FILE_BYTES, contentType }).catch((err: unknown) => {
      throw err instanceof BlobTooLargeError ? filesErrors.fileTooLarge(MAX_FILE_BYTES) : err;
    });
    const { limitBytes } = await this.storage.planLimits(orgId);
    const row: FileRow = {
      id, orgId, fileName: sanitizeFileName(part.fileName), contentType, sizeBytes: stored.size, sha256: stored.sha256, blobKey: key,
      scope: context.scope, shareMode: 'restricted', shareToken: randomUUID(), sealed: false, uploadedBy, uploadedAt: this.clock.now(), deletedAt: null,
      ...(context.appGroupId ? { appGroupId: context.appGroupId } : {}),
    };
    try {
      await this.db.transaction(async (trx) => {
        await this.storage.reserve(trx, orgId, row.sizeBytes, limitBytes);
        await trx(FILES_TABLE).insert(row);
        await this.audit.append(trx, {
          orgId, eventType: 'org.file.uploaded',
          businessData: { fileId: id, fileName: row.fileName, contentType, sizeBytes: row.sizeBytes, sha256: row.sha256 },
        });
      });
    } catch (err) {
      await this.blob.delete(key);
      throw err;
    }
    return toFileDto(row);
  }

  /** A page of live (or trashed) files, newest first, optionally whose name contains `q` (any case). */
  async list(orgId: string, query: ListQuery): Promise<{ items: FileDto[]; page: number; pageSize: number; total: number }> {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 50;
    const filter = this.db.knex<FileRow>(FILES_TABLE).where({ orgId });
    if (query.uploadedBy !== undefined) filter.where({ uploadedBy: query.uploadedBy });
    if (query.appGroupId !== undefined) filter.where({ appGroupId: query.appGroupId });
    if (query.meetingId !== undefined) filter.where({ scope: `meeting:${query.meetingId}` });
    if (query.trashed) filter.whereNotNull('deletedAt');
    else filter.whereNull('deletedAt');
    if (query.q) filter.whereILike('fileName', `%${query.q.replace(/[\\%_]/g, '\\$&')}%`);
    const [rows, [count]] = await Promise.all([
      filter.clone().orderBy([{ column: 'uploadedAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(pageSize).offset((page - 1) * pageSize),
      filter.clone().count<{ count: number }[]>({ count: '*' }),
    ]);
    return { items: rows.map(toFileDto), page, pageSize, total: Number(count?.count ?? 0) };
  }

  /**
   * A 10-minute download URL for a live file, always `attachment`; the issuance is audited.
   * @throws 404 for an unknown, foreign or trashed file
   */
  async download(orgId: string, fileId: string): Promise<{ url: string; fileName: string; expiresInMinutes: number }> {
    const file = await this.live(orgId, fileId);
    const url = await this.blob.presignGet(file.blobKey, { expiresInSeconds: DOWNLOAD_URL_SECONDS, fileName: file.fileName, disposition: 'attachment' });
    await this.audit.append(this.db.knex, { orgId, eventType: 'org.file.download_link_issued', businessData: { fileId, fileName: file.fileName } });
    await this.db.knex(FILES_TABLE).where({ orgId, id: fileId }).update({ lastAccessedAt: this.clock.now() });
    return { url, fileName: file.fileName, expiresInMinutes: DOWNLOAD_URL_SECONDS / 60 };
  }

  /**
   * Moves a live file to the trash: usage frees at once and the purge is queued for the end of the
   * plan's retention window.
   * @throws 404 for an unknown, foreign or trashed file; 409 `sealed_attachment`
   */
  async trash(orgId: string, fileId: string): Promise<{ trashed: true; retentionDays: number; restorableUntil: string }> {
    const file = await this.live(orgId, fileId);
    if (file.sealed) throw filesErrors.sealedAttachment();
    const { retentionDays } = await this.storage.planLimits(orgId);
    const now = this.clock.now();
    await this.db.transaction(async (trx) => {
      const changed = await trx(FILES_TABLE).where({ orgId, id: fileId, sealed: false }).whereNull('deletedAt').update({ deletedAt: now });
      if (changed === 0) throw filesErrors.fileNotFound();
      await this.storage.release(trx, orgId, Number(file.sizeBytes));
      await this.audit.append(trx, { orgId, eventType: 'org.file.trashed', businessData: { fileId, fileName: file.fileName, sizeBytes: Number(file.sizeBytes), retentionDays } });
      await this.jobs.send(PURGE_JOB, { orgId, fileId }, { trx, startAfterSeconds: retentionDays * 86_400 });
    });
    return { trashed: true, retentionDays, restorableUntil: new Date(now.getTime() + retentionDays * DAY_MS).toISOString() };
  }

  /**
   * Brings a trashed file back, reserving its bytes again.
   * @throws 404 for an unknown, foreign or live file; 403 `storage_quota_exceeded`
   */
  async restore(orgId: string, fileId: string): Promise<FileDto> {
    const { limitBytes } = await this.storage.planLimits(orgId);
    return this.db.transaction(async (trx) => {
      const [row] = isUuid(fileId)
        ? await trx<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).whereNotNull('deletedAt').update({ deletedAt: null }).returning('*')
        : [];
      if (!row) throw filesErrors.fileNotFound();
      await this.storage.reserve(trx, orgId, Number(row.sizeBytes), limitBytes);
      await this.audit.append(trx, { orgId, eventType: 'org.file.restored', businessData: { fileId, fileName: row.fileName, sizeBytes: Number(row.sizeBytes) } });
      return toFileDto(row as FileRow);
    });
  }

  /** A file of the organization, live or trashed, or undefined. */
  async find(orgId: string, fileId: string): Promise<FileRow | undefined> {
    return isUuid(fileId) ? this.db.knex<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).first() : undefined;
  }

  /** A live file of the organization. @throws 404 otherwise */
  async live(orgId: string, fileId: string): Promise<FileRow> {
    const row = isUuid(fileId) ? await this.db.knex<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).whereNull('deletedAt').first() : undefined;
    if (!row) throw filesErrors.fileNotFound();
    return row;
  }
}
