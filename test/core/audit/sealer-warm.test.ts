import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { createHashPool, verifyRecords, type HashPool } from '../../../core/audit/chain/index.ts';
import { systemClock } from '../../../core/clock.ts';

/** The real pool, recording which calls the sealer made. */
function recordingPool(calls: string[]): () => HashPool {
  return () => {
    calls.push('create');
    const real = createHashPool({ maxThreads: 2 });
    return {
      threads: real.threads,
      seal: (...a) => (calls.push('seal'), real.seal(...a)),
      sealJson: (...a) => (calls.push('sealJson'), real.sealJson(...a)),
      renderIngest: (...a) => (calls.push('renderIngest'), real.renderIngest(...a)),
      warm: async () => {
        calls.push('warm');
        await real.warm!();
        calls.push('warmed');
      },
      close: () => (calls.push('close'), real.close()),
      destroy: () => real.destroy(),
    };
  };
}

describe('audit sealer warms its hash pool at start', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(() => aerie?.close());

  it('creates and warms the pool at start(), before any batch, then seals through it', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { warmPool: true, poolThreshold: 1, intervalMs: 60_000, pool: recordingPool(calls) });
    sealer.start();
    expect(calls).toEqual(['create', 'warm']);
    await expect.poll(() => calls.includes('warmed'), { timeout: 20_000 }).toBe(true);
    const orgId = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 20 }, (_, i) => ({ orgId, eventType: 'test.warm', businessData: { i } }))));
    expect(await sealer.drain()).toBe(20);
    await sealer.stop();
    expect(calls).toEqual(['create', 'warm', 'warmed', 'sealJson', 'close']);
    const chain = await readChain(aerie.kernel.db.knex, orgId);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(verifyRecords(chain).ok).toBe(true);
  });

  it('warms by default on a PostgreSQL server, not on embedded PGlite', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { intervalMs: 60_000, pool: recordingPool(calls) });
    sealer.start();
    expect(calls).toEqual(aerie.kernel.db.kind === 'pg' ? ['create', 'warm'] : []);
    await sealer.stop();
  });

  it('does not create the pool at start() when warmPool is false', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { warmPool: false, intervalMs: 60_000, pool: recordingPool(calls) });
    sealer.start();
    await sealer.stop();
    expect(calls).toEqual([]);
  });
});
