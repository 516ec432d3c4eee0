import type { PlanKey } from '../orgs/api.ts';

const GIB = 1024 ** 3;

/** Largest file accepted by an upload: 10 MiB. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Storage included in each plan, in bytes; `null` is unlimited. @see docs/api/files.md "Plans" */
export const STORAGE_LIMIT_BYTES: Readonly<Record<PlanKey, number | null>> = {
  Free: 2 * GIB,
  Pro: 30 * GIB,
  ProPlus: 100 * GIB,
  Business: 200 * GIB,
  Enterprise: null,
};

/** Days a trashed file can be restored before the purge job removes it: 7 on Free, 30 on paid plans. */
export function trashRetentionDays(plan: PlanKey): number {
  return plan === 'Free' ? 7 : 30;
}
