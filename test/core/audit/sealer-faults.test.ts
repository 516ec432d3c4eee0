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

/** A pool whose worker fails: by throwing, or by the thread going away mid-task. */
function failingPool(kind: 'throws' | 'exits'): () => HashPool {
  return () => {
    const real = createHashPool({ maxThreads: 1 });
    const fail = async () => {
      if (kind === 'exits') {
        await real.destroy();
        throw new Error('worker thread exited mid-batch');
      }
      throw new Error('worker threw mid-batch');
    };
    return {
      threads: 1,
      seal: fail,
      renderIngest: fail,
      sealJson: fail,
      close: () => real.close().catch(() => undefined),
      destroy: () => real.destroy(),
    };
  };
}

describe('core.audit sealer faults', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(() => aerie?.close());

  it.each(['throws', 'exits'] as const)('when the worker %s mid-batch, the failed transaction leaves nothing behind and the sealer seals in-line instead, each event once', async (kind) => {
    const orgId = randomUUID();
    const db = aerie.kernel.db;
    const { ids } = await db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 40 }, (_, i) => ({ orgId, eventType: 'test.fault', businessData: { i } }))));
    const sealer = new AuditSealer(db, systemClock, pino({ level: 'silent' }), { poolThreshold: 1, pool: failingPool(kind) });
    expect(await sealer.drain()).toBe(40);
    await sealer.stop();
    const chain = await readChain(db.knex, orgId);
    expect(chain.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(verifyRecords(chain).ok).toBe(true);
    expect(await aerie.sql('select count(*)::int as n from core.audit_outbox where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_dead_letters where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
  });

  it('on a transient failure (the database going away) keeps every event in the outbox, dead-letters nothing and reports failing', async () => {
    const orgId = randomUUID();
    const db = aerie.kernel.db;
    await db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 40 }, (_, i) => ({ orgId, eventType: 'test.fault', businessData: { i } }))));
    const gone = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    const sealer = new AuditSealer(db, systemClock, pino({ level: 'silent' }), { poolThreshold: 1, pool: () => ({ ...failingPool('throws')(), sealJson: () => Promise.reject(gone) }) });
    await expect(sealer.drain()).rejects.toBe(gone);
    await expect(sealer.drain()).rejects.toBe(gone);
    expect(sealer.state()).toMatchObject({ state: 'failing', consecutiveFailures: 2, lastError: gone.message });
    await sealer.stop();
    expect(await aerie.sql('select count(*)::int as n from core.audit_outbox where org_id = ?', [orgId])).toEqual([{ n: 40 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_events where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_dead_letters where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await new AuditSealer(db, systemClock, pino({ level: 'silent' })).drain()).toBe(40);
  });
});
