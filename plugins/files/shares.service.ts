import { createHmac, randomUUID } from 'node:crypto';
import { coreRefs, inject, injectable, type AerieConfig, type AuditService, type BlobStore, type Clock, type CryptoService, type Database, type RequestInfo, isUuid } from '../../core/index.ts';
import { isInlineViewable } from './content-type.ts';
import { filesErrors } from './errors.ts';
import { FILES_TABLE, type FileRow, type ShareMode } from './file-row.ts';
import { filesRefs } from './internal-refs.ts';
import type { StorageService } from './storage.service.ts';
import type { FilesService } from './files.service.ts';

/** Seconds a share link's content URL works. */
export const SHARE_CONTENT_SECONDS = 600;

/** `PATCH /files/{id}/share` and rotation answer. */
export interface ShareDto {
  id: string;
  fileName: string;
  mode: ShareMode;
  shareToken: string;
  /** `{baseUrl}/f/{shareToken}` while `link_anyone`, else null. */
  shareUrl: string | null;
}

/** What a share link answers to anyone holding it. */
export interface SharedFileDto {
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uploadedAt: string;
  /** `inline` for images, PDF, audio and video recognised from their bytes; `attachment` otherwise. */
  disposition: 'inline' | 'attachment';
  contentUrl: string;
  expiresInMinutes: number;
}

const MODES: readonly string[] = ['restricted', 'link_anyone'];

/**
 * Share links: every file has one canonical token from upload (a 128-bit GUID: a random UUID v4).
 * `restricted` ↔ `link_anyone` only flips whether the token opens the file, so re-opening revives
 * the same address; rotation replaces the token, so every earlier link dies. The token is the only
 * credential of `GET /api/public/share/{shareToken}`, which only ever hands out a short signed read.
 * @see docs/api/files.md "Sharing"
 */
@injectable()
export class SharesService {
  private readonly viewerKey: Buffer;

  constructor(
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
    @inject(coreRefs.blob.id) private readonly blob: BlobStore,
    @inject(coreRefs.clock.id) private readonly clock: Clock,
    @inject(coreRefs.config.id) private readonly config: AerieConfig,
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(filesRefs.files.id) private readonly files: FilesService,
    @inject(filesRefs.storage.id) private readonly storage: StorageService,
    @inject(coreRefs.crypto.id) crypto: CryptoService,
  ) {
    this.viewerKey = crypto.deriveKey('files.share_viewer');
  }

  /**
   * Sets a live file's share mode (audited when it changes).
   * @throws 400 `invalid_mode`; 404 for an unknown, foreign or trashed file; 409 `external_sharing_disabled` when opening while the organization blocks it
   */
  async setMode(orgId: string, fileId: string, mode: string | undefined): Promise<ShareDto> {
    if (mode === undefined || !MODES.includes(mode)) throw filesErrors.invalidMode();
    const file = await this.files.live(orgId, fileId);
    return this.db.transaction(async (trx) => {
      if (mode === 'link_anyone' && (await this.storage.sharingBlocked(trx, orgId))) throw filesErrors.externalSharingDisabled();
      const [row] = await trx<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).whereNull('deletedAt').update({ shareMode: mode as ShareMode }).returning('*');
      if (!row) throw filesErrors.fileNotFound();
      if (file.shareMode !== mode) {
        await this.audit.append(trx, { orgId, eventType: 'org.file.share_mode_changed', businessData: { fileId, fileName: row.fileName, from: file.shareMode, to: mode } });
      }
      return this.dto(row as FileRow);
    });
  }

  /** Gives a live file a new token; every earlier link stops working for good. @throws 404 for an unknown, foreign or trashed file */
  async rotate(orgId: string, fileId: string): Promise<ShareDto> {
    await this.files.live(orgId, fileId);
    return this.db.transaction(async (trx) => {
      const [row] = await trx<FileRow>(FILES_TABLE).where({ orgId, id: fileId }).whereNull('deletedAt').update({ shareToken: randomUUID() }).returning('*');
      if (!row) throw filesErrors.fileNotFound();
      await this.audit.append(trx, { orgId, eventType: 'org.file.share_token_rotated', businessData: { fileId, fileName: row.fileName, mode: row.shareMode } });
      return this.dto(row as FileRow);
    });
  }

  /**
   * What a share link opens: the file's metadata and a 10-minute content URL (inline only for the
   * viewable allow-list). Audited as `org.file.share_viewed` with the viewer's IP and user agent keyed-hashed.
   * @throws 404 when no live file has this token; 403 when it has, but is not shared
   */
  async open(token: string, request: RequestInfo): Promise<SharedFileDto> {
    const row = isUuid(token) ? await this.db.knex<FileRow>(FILES_TABLE).where({ shareToken: token.toLowerCase() }).whereNull('deletedAt').first() : undefined;
    if (!row) throw filesErrors.shareNotFound();
    if (row.shareMode !== 'link_anyone') throw filesErrors.shareClosed();
    const disposition = isInlineViewable(row.contentType) ? 'inline' : 'attachment';
    const contentUrl = await this.blob.presignGet(row.blobKey, { expiresInSeconds: SHARE_CONTENT_SECONDS, fileName: row.fileName, disposition });
    await this.db.knex(FILES_TABLE).where({ orgId: row.orgId, id: row.id }).update({ lastAccessedAt: this.clock.now() });
    const agent = String(request.headers['user-agent'] ?? '');
    await this.audit.append(this.db.knex, {
      orgId: row.orgId, eventType: 'org.file.share_viewed', actor: { type: 'system', id: 'share-link' },
      businessData: { fileId: row.id, ipHash: this.hash(request.ip), userAgentHash: this.hash(agent) },
    });
    return {
      fileName: row.fileName, contentType: row.contentType, sizeBytes: Number(row.sizeBytes), sha256: row.sha256,
      uploadedAt: row.uploadedAt.toISOString(), disposition, contentUrl, expiresInMinutes: SHARE_CONTENT_SECONDS / 60,
    };
  }

  /** Keyed (HMAC-SHA256 under a key derived for this only), so a hashed address cannot be found by trying them all. */
  private hash(text: string): string {
    return createHmac('sha256', this.viewerKey).update(text).digest('hex');
  }

  private dto(row: FileRow): ShareDto {
    return {
      id: row.id, fileName: row.fileName, mode: row.shareMode, shareToken: row.shareToken,
      shareUrl: row.shareMode === 'link_anyone' ? `${this.config.shareUrl}/f/${row.shareToken}` : null,
    };
  }
}
