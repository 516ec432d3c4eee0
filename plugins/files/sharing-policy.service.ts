import { coreRefs, inject, injectable, type AuditService, type Database } from '../../core/index.ts';
import { FILES_TABLE, STORAGE_TABLE, type FileRow } from './file-row.ts';

/** `GET|PUT /api/org/{slug}/files/sharing-policy`. @see docs/api/files.md "Sharing policy" */
export interface SharingPolicyDto {
  blockExternalSharing: boolean;
}

/**
 * The organization's `org.setting.block_external_sharing` policy, kept on its storage row. Turning
 * it on closes every open share link in the same transaction (each file's `link_anyone` →
 * `restricted` audited as `org.file.share_mode_changed` with `reason: "policy"`); while it is on,
 * opening a link answers 409 `external_sharing_disabled`. Turning it off reopens nothing.
 */
@injectable()
export class SharingPolicyService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(coreRefs.audit.id) private readonly audit: AuditService,
  ) {}

  async get(orgId: string): Promise<SharingPolicyDto> {
    const row = await this.db.knex(STORAGE_TABLE).where({ orgId }).first('blockExternalSharing');
    return { blockExternalSharing: row?.blockExternalSharing === true };
  }

  /** Sets the policy; answers it with `closedShares`, the links it closed now. */
  async set(orgId: string, block: boolean): Promise<SharingPolicyDto & { closedShares: number }> {
    return this.db.transaction(async (trx) => {
      await trx(STORAGE_TABLE).insert({ orgId }).onConflict('orgId').ignore();
      // Locked first: a share opened concurrently waits, then sees the policy (it reads the same row).
      await trx(STORAGE_TABLE).where({ orgId }).forUpdate().first('orgId');
      await trx(STORAGE_TABLE).where({ orgId }).update({ blockExternalSharing: block });
      if (!block) return { blockExternalSharing: false, closedShares: 0 };
      const closed = await trx<FileRow>(FILES_TABLE).where({ orgId, shareMode: 'link_anyone' })
        .update({ shareMode: 'restricted' }).returning(['id', 'fileName']);
      if (closed.length > 0) {
        await this.audit.appendMany(trx, closed.map((f) => ({
          orgId, eventType: 'org.file.share_mode_changed',
          businessData: { fileId: f.id, fileName: f.fileName, from: 'link_anyone', to: 'restricted', reason: 'policy' },
        })));
      }
      return { blockExternalSharing: true, closedShares: closed.length };
    });
  }
}
