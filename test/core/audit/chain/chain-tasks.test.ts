import { afterAll, describe, expect, it } from 'vitest';
import type { AuditRecordInput } from '../../../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, sealBatch } from '../../../../core/audit/chain/chain-hash.ts';
import { registerChainTasks } from '../../../../core/audit/chain/chain-tasks.ts';
import { packSealResult, unpackSealResult } from '../../../../core/audit/chain/packed-result.ts';
import sealBatchTask from '../../../../core/audit/chain/seal-batch.task.ts';
import { chainWorkers } from '../../../helpers/chain-workers.ts';
import { ORG_A, ORG_B, makeRecords } from './fixtures.ts';

const SEALED_AT = '2026-10-16T09:00:00.000Z';
const ORG_C = 'c0c0c0c0-1111-4222-8333-444455556666';
const ORG_D = 'd0d0d0d0-1111-4222-8333-444455556666';

/** Batches of `size` for one organization, seq 1..count. */
const batches = (orgId: string, count: number, size: number): AuditRecordInput[][] => {
  const records = makeRecords(orgId, count);
  return Array.from({ length: Math.ceil(count / size) }, (_, i) => records.slice(i * size, (i + 1) * size));
};

describe('core.audit.seal-batch task module', () => {
  it('is sealBatch over the JSON text, packed; the packed form unpacks to exactly the same result', () => {
    const records = makeRecords(ORG_A, 7, 3);
    const prevHash = 'ab'.repeat(32);
    const packed = sealBatchTask({ prevHash, sealedAt: SEALED_AT, records: JSON.stringify(records) });
    expect(packed.hashes).toHaveLength(7 * 128);
    expect(unpackSealResult(prevHash, packed)).toEqual(sealBatch(prevHash, records, SEALED_AT));
    expect(() => unpackSealResult(prevHash, { ...packed, hashes: packed.hashes.slice(1) })).toThrow(RangeError);
    expect(packSealResult(sealBatch(prevHash, records, SEALED_AT))).toEqual(packed);
  });

  it('adds seqOffset to each parsed seq', () => {
    const records = makeRecords(ORG_A, 5);
    const numbered = JSON.stringify(records.slice(2).map((r, i) => ({ ...r, seq: i + 1 })));
    const head = sealBatch(GENESIS_HASH, records.slice(0, 2), SEALED_AT).head;
    const packed = sealBatchTask({ prevHash: head.chainHash, sealedAt: SEALED_AT, records: numbered, seqOffset: 2 });
    expect(unpackSealResult(head.chainHash, packed)).toEqual(sealBatch(head.chainHash, records.slice(2), SEALED_AT));
  });
});

describe('the chain tasks on core.workers (sealJson)', () => {
  const { workers, tasks } = chainWorkers(2);
  afterAll(() => workers.close());

  it('returns exactly the hashes in-line sealBatch returns, four organizations concurrently', async () => {
    await tasks.warm();
    const input = [ORG_A, ORG_B, ORG_C, ORG_D].map((org, i) => batches(org, 300 + i * 37, 64));
    const inline = input.map((orgBatches) => {
      let prev = GENESIS_HASH;
      return orgBatches.map((batch) => {
        const result = sealBatch(prev, batch, SEALED_AT);
        prev = result.head.chainHash;
        return result;
      });
    });
    const pooled = await Promise.all(
      input.map(async (orgBatches) => {
        let prev = GENESIS_HASH;
        const results = [];
        for (const batch of orgBatches) {
          const result = await tasks.sealJson(prev, JSON.stringify(batch), SEALED_AT);
          prev = result.head.chainHash;
          results.push(result);
        }
        return results;
      }),
    );
    expect(pooled).toEqual(inline);
  });

  it('rejects with the error in-line sealBatch throws, and keeps working afterwards', async () => {
    const records = makeRecords(ORG_A, 3, 5);
    await expect(tasks.sealJson(GENESIS_HASH, JSON.stringify(records), SEALED_AT)).rejects.toThrow('sealBatch: seq 5 cannot follow the genesis hash');
    await expect(tasks.sealJson(GENESIS_HASH, JSON.stringify(makeRecords(ORG_A, 1)), '2026-10-16')).rejects.toThrow(/sealedAt must be/);
    expect(await tasks.sealJson(GENESIS_HASH, JSON.stringify(makeRecords(ORG_A, 2)), SEALED_AT)).toEqual(sealBatch(GENESIS_HASH, makeRecords(ORG_A, 2), SEALED_AT));
  });

  it('are registered once per pool: a second registration is refused', () => {
    expect(() => registerChainTasks(workers)).toThrow(/core\.audit\.seal-batch" is already registered/);
  });
});
