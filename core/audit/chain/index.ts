/**
 * The sealed audit chain's pure core: record shapes, hashing, verification, checkpoints, the
 * JSONL export, the CLI command and the chain's worker tasks. See ./README.md.
 *
 * @see docs/audit.md
 */
export * from './audit-record.ts';
export * from './canonical-json.ts';
export * from './chain-hash.ts';
export * from './chain-hash-v2.ts';
export * from './ingest-rows.ts';
export * from './record-hash.ts';
export * from './verify-chain.ts';
export * from './checkpoint.ts';
export * from './export-file.ts';
export * from './verify-export-file.ts';
export * from './verify-file.command.ts';
export * from './packed-result.ts';
export * from './chain-tasks.ts';
export * from './day-file.ts';
