import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { registerChainTasks, verifyRecords, type ChainTasks } from '../../../core/audit/chain/index.ts';
import { systemClock } from '../../../core/clock.ts';
import { WorkerPool } from '../../../core/workers/worker-pool.ts';
import { WorkerTaskError } from '../../../core/workers/workers.types.ts';

/** Chain tasks whose worker fails for real: a task that throws, or one whose thread exits mid-task. */
const workers = new WorkerPool({ maxThreads: 1 });
workers.register('test.fail', new URL('../workers/tasks/fail.task.ts', import.meta.url));
workers.register('test.exit', new URL('../workers/tasks/exit.task.ts', import.meta.url));
function failingTasks(kind: 'throws' | 'exits'): ChainTasks {
  const fail = () => (kind === 'throws' ? workers.run<never>('test.fail', { why: 'worker threw mid-batch' }) : workers.run<never>('test.exit', null));
  return { sealJson: fail, renderIngest: fail, warm: async () => undefined };
}

describe('core.audit sealer faults', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  beforeAll(async () => {
    ({ aerie, audit } = await startQuietAudit());
  });
  afterAll(async () => {
    await workers.close();
    await aerie?.close();
  });

  it.each(['throws', 'exits'] as const)('when the worker %s mid-batch, the failed transaction leaves nothing behind and the sealer seals in-line instead, each event once', async (kind) => {
    const orgId = randomUUID();
    const db = aerie.kernel.db;
    const { ids } = await db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 40 }, (_, i) => ({ orgId, eventType: 'test.fault', businessData: { i } }))));
    const sealer = new AuditSealer(db, systemClock, pino({ level: 'silent' }), { poolThreshold: 1, pool: failingTasks(kind) });
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
    const sealer = new AuditSealer(db, systemClock, pino({ level: 'silent' }), { poolThreshold: 1, pool: { ...failingTasks('throws'), sealJson: () => Promise.reject(gone) } });
    await expect(sealer.drain()).rejects.toBe(gone);
    await expect(sealer.drain()).rejects.toBe(gone);
    expect(sealer.state()).toMatchObject({ state: 'failing', consecutiveFailures: 2, lastError: gone.message });
    await sealer.stop();
    expect(await aerie.sql('select count(*)::int as n from core.audit_outbox where org_id = ?', [orgId])).toEqual([{ n: 40 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_events where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_dead_letters where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await new AuditSealer(db, systemClock, pino({ level: 'silent' })).drain()).toBe(40);
  });

  it('takes core.workers closed (shutdown) as transient: the events stay in the outbox, nothing is dead-lettered', async () => {
    const orgId = randomUUID();
    const db = aerie.kernel.db;
    await db.transaction((trx) => audit.appendMany(trx, Array.from({ length: 40 }, (_, i) => ({ orgId, eventType: 'test.fault', businessData: { i } }))));
    const closed = new WorkerPool({ maxThreads: 1 });
    const tasks = registerChainTasks(closed);
    await closed.close();
    const sealer = new AuditSealer(db, systemClock, pino({ level: 'silent' }), { poolThreshold: 1, pool: tasks });
    const err = await sealer.drain().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerTaskError);
    expect(err).toMatchObject({ code: 'closed' });
    expect(sealer.state()).toMatchObject({ state: 'failing', consecutiveFailures: 1 });
    await sealer.stop();
    expect(await aerie.sql('select count(*)::int as n from core.audit_outbox where org_id = ?', [orgId])).toEqual([{ n: 40 }]);
    expect(await aerie.sql('select count(*)::int as n from core.audit_dead_letters where org_id = ?', [orgId])).toEqual([{ n: 0 }]);
    expect(await new AuditSealer(db, systemClock, pino({ level: 'silent' })).drain()).toBe(40);
  });
});
