import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecordInput } from '../../core/audit/chain/audit-record.ts';
import { GENESIS_HASH, sealBatch } from '../../core/audit/chain/chain-hash.ts';
import { createHashPool, type HashPool } from '../../core/audit/chain/hash-pool.ts';
import { packSealResult, unpackSealResult } from '../../core/audit/chain/packed-result.ts';
import sealChain, { sealChainPacked } from '../../workers/seal-chain.ts';
import { ORG_A, ORG_B, makeRecords } from '../core/audit/chain/fixtures.ts';

const SEALED_AT = '2026-10-16T09:00:00.000Z';
const ORG_C = 'c0c0c0c0-1111-4222-8333-444455556666';
const ORG_D = 'd0d0d0d0-1111-4222-8333-444455556666';

/** Batches of `size` for one organization, seq 1..count. */
const batches = (orgId: string, count: number, size: number): AuditRecordInput[][] => {
  const records = makeRecords(orgId, count);
  return Array.from({ length: Math.ceil(count / size) }, (_, i) => records.slice(i * size, (i + 1) * size));
};

describe('workers/seal-chain task module', () => {
  it('the default export is sealBatch over the task, from objects or from JSON text', () => {
    const records = makeRecords(ORG_A, 5);
    const expected = sealBatch(GENESIS_HASH, records, SEALED_AT);
    expect(sealChain({ prevHash: GENESIS_HASH, sealedAt: SEALED_AT, records })).toEqual(expected);
    expect(sealChain({ prevHash: GENESIS_HASH, sealedAt: SEALED_AT, records: JSON.stringify(records) })).toEqual(expected);
  });

  it('the packed form unpacks to exactly the same result', () => {
    const records = makeRecords(ORG_A, 7, 3);
    const prevHash = 'ab'.repeat(32);
    const packed = sealChainPacked({ prevHash, sealedAt: SEALED_AT, records });
    expect(packed.hashes).toHaveLength(7 * 128);
    expect(unpackSealResult(prevHash, packed)).toEqual(sealBatch(prevHash, records, SEALED_AT));
    expect(() => unpackSealResult(prevHash, { ...packed, hashes: packed.hashes.slice(1) })).toThrow(RangeError);
    expect(packSealResult(sealBatch(prevHash, records, SEALED_AT))).toEqual(packed);
  });
});

describe('hash pool (piscina over workers/seal-chain.ts)', () => {
  let pool: HashPool;
  beforeAll(() => {
    pool = createHashPool({ minThreads: 2, maxThreads: 2 });
  });
  afterAll(async () => {
    await pool.destroy();
  });

  it('returns exactly the hashes in-line sealBatch returns, four organizations concurrently', async () => {
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
      input.map(async (orgBatches, o) => {
        let prev = GENESIS_HASH;
        const results = [];
        for (const [b, batch] of orgBatches.entries()) {
          // alternate the two entry points: objects and JSON text
          const result = b % 2 === 0 ? await pool.seal(prev, batch, SEALED_AT) : await pool.sealJson(prev, JSON.stringify(batch), SEALED_AT);
          prev = result.head.chainHash;
          results.push(result);
        }
        expect(results.length).toBe(inline[o].length);
        return results;
      }),
    );
    expect(pooled).toEqual(inline);
  });

  it('rejects with the error in-line sealBatch throws, and keeps working afterwards', async () => {
    const records = makeRecords(ORG_A, 3, 5);
    await expect(pool.seal(GENESIS_HASH, records, SEALED_AT)).rejects.toThrow('sealBatch: seq 5 cannot follow the genesis hash');
    await expect(pool.seal(GENESIS_HASH, makeRecords(ORG_A, 1), '2026-10-16')).rejects.toThrow(/sealedAt must be/);
    expect(await pool.seal(GENESIS_HASH, makeRecords(ORG_A, 2), SEALED_AT)).toEqual(sealBatch(GENESIS_HASH, makeRecords(ORG_A, 2), SEALED_AT));
  });

  it('validates its thread options; close() drains, destroy() stops', async () => {
    expect(() => createHashPool({ minThreads: 3, maxThreads: 2 })).toThrow(RangeError);
    expect(() => createHashPool({ maxThreads: 0 })).toThrow(RangeError);
    const small = createHashPool({ maxThreads: 1 });
    expect(small.threads).toBe(1);
    const pending = small.seal(GENESIS_HASH, makeRecords(ORG_B, 10), SEALED_AT);
    await small.close();
    expect((await pending).head.seq).toBe(10);
    await expect(small.seal(GENESIS_HASH, makeRecords(ORG_B, 1), SEALED_AT)).rejects.toThrow('hash pool is closed');
    const doomed = createHashPool({ maxThreads: 1 });
    const inFlight = doomed.seal(GENESIS_HASH, makeRecords(ORG_B, 2_000), SEALED_AT).then(() => 'sealed', (e: Error) => e.message);
    await doomed.destroy();
    expect(await inFlight).toBe('Terminating worker thread');
    await expect(doomed.sealJson(GENESIS_HASH, '[]', SEALED_AT)).rejects.toThrow('hash pool is closed');
  });
});
