import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords, type ChainTasks } from '../../../core/audit/chain/index.ts';
import { systemClock } from '../../../core/clock.ts';
import { chainWorkers } from '../../helpers/chain-workers.ts';

/** The chain's real tasks on a pool of their own, recording which calls the sealer made. */
function recordingTasks(calls: string[], real: ChainTasks): ChainTasks {
  return {
    sealJson: (...a) => (calls.push('sealJson'), real.sealJson(...a)),
    renderIngest: (...a) => (calls.push('renderIngest'), real.renderIngest(...a)),
    warm: async () => {
      calls.push('warm');
      await real.warm();
      calls.push('warmed');
    },
  };
}

describe('audit sealer warms its hash pool at start', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  const { workers, tasks } = chainWorkers(2);
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(async () => {
    await workers.close();
    await aerie?.close();
  });

  it('starts and warms the pool at start(), before any batch, then seals through it; stop() leaves the pool to the kernel', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { warmPool: true, poolThreshold: 1, intervalMs: 60_000, pool: recordingTasks(calls, tasks) });
    sealer.start();
    expect(calls).toEqual(['warm']);
    await expect.poll(() => calls.includes('warmed'), { timeout: 20_000 }).toBe(true);
    const orgId = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 20 }, (_, i) => ({ orgId, eventType: 'test.warm', businessData: { i } }))));
    expect(await sealer.drain()).toBe(20);
    await sealer.stop();
    expect(calls).toEqual(['warm', 'warmed', 'sealJson']);
    await expect(tasks.warm()).resolves.toBeUndefined(); // the pool is the kernel's to close: still running
    const chain = await readChain(aerie.kernel.db.knex, orgId);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(verifyRecords(chain).ok).toBe(true);
  });

  it('warms by default on a PostgreSQL server, not on embedded PGlite', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { intervalMs: 60_000, pool: recordingTasks(calls, tasks) });
    sealer.start();
    expect(calls).toEqual(aerie.kernel.db.kind === 'pg' ? ['warm'] : []);
    await sealer.stop();
  });

  it('does not start the pool at start() when warmPool is false', async () => {
    const calls: string[] = [];
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, pino({ level: 'silent' }), { warmPool: false, intervalMs: 60_000, pool: recordingTasks(calls, tasks) });
    sealer.start();
    await sealer.stop();
    expect(calls).toEqual([]);
  });
});
