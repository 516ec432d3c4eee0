import type { Knex } from 'knex';
import { coreRefs, inject, injectable, type Database } from '../../core/index.ts';
import { orgsRefs, type EntitlementsService } from '../orgs/api.ts';
import { filesErrors } from './errors.ts';
import { FILES_TABLE, STORAGE_TABLE } from './file-row.ts';
import { STORAGE_LIMIT_BYTES, trashRetentionDays } from './plans.ts';

/** `GET /storage/usage`. @see docs/api/files.md "Storage usage" */
export interface StorageUsage {
  usedBytes: number;
  limitBytes: number | null;
  remainingBytes: number | null;
  fileCount: number;
  trashedBytes: number;
  trashedCount: number;
  trashRetentionDays: number;
}

/**
 * An organization's storage: `used_bytes` of its `files.org_storage` row is the one number the
 * upload gate enforces and `/storage/usage` reports. {@link reserve} raises it with a conditional
 * increment (`used + n <= limit`) in the caller's transaction, so concurrent uploads serialise on the
 * row and never both squeeze into the last free bytes; {@link release} lowers it when a file is trashed.
 */
@injectable()
export class StorageService {
  constructor(
    @inject(coreRefs.db.id) private readonly db: Database,
    @inject(orgsRefs.entitlements.id) private readonly entitlements: EntitlementsService,
  ) {}

  /** The plan's storage limit in bytes (`null`: unlimited) and trash retention in days. */
  async planLimits(orgId: string): Promise<{ limitBytes: number | null; retentionDays: number }> {
    const plan = await this.entitlements.planOf(orgId);
    return { limitBytes: STORAGE_LIMIT_BYTES[plan], retentionDays: trashRetentionDays(plan) };
  }

  /** Adds `bytes` to the organization's usage in `trx`. @throws 403 `storage_quota_exceeded` when it does not fit `limitBytes`. */
  async reserve(trx: Knex.Transaction, orgId: string, bytes: number, limitBytes: number | null): Promise<void> {
    await trx(STORAGE_TABLE).insert({ orgId }).onConflict('orgId').ignore();
    const gate = trx(STORAGE_TABLE).where({ orgId });
    if (limitBytes !== null) gate.andWhereRaw('used_bytes + ? <= ?', [bytes, limitBytes]);
    const [row] = await gate.increment('usedBytes', bytes).returning('usedBytes');
    if (row) return;
    const current = await trx(STORAGE_TABLE).where({ orgId }).first('usedBytes');
    throw filesErrors.quotaExceeded(Number(current.usedBytes), limitBytes!);
  }

  /** Takes `bytes` off the organization's usage in `trx` (a file left the live set). */
  async release(trx: Knex.Transaction, orgId: string, bytes: number): Promise<void> {
    await trx(STORAGE_TABLE).where({ orgId }).decrement('usedBytes', bytes);
  }

  /**
   * Whether the organization blocks link sharing, read `FOR SHARE` in `trx`: a policy switch that
   * closes every link (it locks the row for update) waits for this share to commit, or this one for it.
   */
  async sharingBlocked(trx: Knex.Transaction, orgId: string): Promise<boolean> {
    const row = await trx(STORAGE_TABLE).where({ orgId }).forShare().first('blockExternalSharing');
    return row?.blockExternalSharing === true;
  }

  async usage(orgId: string): Promise<StorageUsage> {
    const { limitBytes, retentionDays } = await this.planLimits(orgId);
    const knex = this.db.knex;
    const [storage, counts] = await Promise.all([
      knex(STORAGE_TABLE).where({ orgId }).first('usedBytes'),
      knex(FILES_TABLE).where({ orgId }).first(
        knex.raw('count(*) filter (where deleted_at is null)::int as file_count'),
        knex.raw('count(*) filter (where deleted_at is not null)::int as trashed_count'),
        knex.raw('coalesce(sum(size_bytes) filter (where deleted_at is not null), 0)::bigint as trashed_bytes'),
      ),
    ]);
    const usedBytes = Number(storage?.usedBytes ?? 0);
    return {
      usedBytes, limitBytes, remainingBytes: limitBytes === null ? null : Math.max(0, limitBytes - usedBytes),
      fileCount: counts.fileCount, trashedBytes: Number(counts.trashedBytes), trashedCount: counts.trashedCount, trashRetentionDays: retentionDays,
    };
  }
}
