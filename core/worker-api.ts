/**
 * The kernel module a worker task module imports (`core.workers`, docs/plugins.md "Worker
 * tasks"). A task runs in a worker thread where no kernel is booted, so it cannot load
 * `core/index.ts` (the plugin API: dependency injection, HTTP, the database) except for types;
 * this module holds only what is safe and cheap to load there — pure functions over plain data.
 */
export { transferable } from './workers/transferable.ts';
/** Reading an audit day file (Parquet) a row group at a time: what the analytics rollups scan. */
export { dayFileRecords, readDayFileMeta, DayFileFormatError, type DayFileMeta, type DayFileSource } from './audit/chain/day-file.ts';
export type { SealedAuditRecord } from './audit/chain/audit-record.ts';
