import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { TestAerie } from '../../helpers/harness.ts';
import { startQuietAudit } from './quiet-audit.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { OutboxAuditService } from '../../../core/audit/audit.service.ts';
import { systemClock } from '../../../core/clock.ts';
import { statementsDuring } from '../../helpers/statements.ts';

/**
 * The sealer's polling: it backs off while the outbox stays empty (an idle server does not query the
 * database five times a second), and an append in this process wakes it, so those events are not
 * kept waiting for the idle pause.
 */
describe('audit sealer: idle back-off and wake on append', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    ({ aerie } = await startQuietAudit());
  });
  afterAll(() => aerie?.close());

  const silent = pino({ level: 'silent' });
  const sealedCount = async (orgId: string) => (await aerie.sql('select count(*)::int as n from core.audit_events where org_id = ?', [orgId]))[0].n as number;
  /** The sealer's "take" statements (one per poll) while `run` runs. */
  const pollsDuring = async (run: () => Promise<void>) => (await statementsDuring(aerie.kernel.db.knex, run)).filter((sql) => sql.includes('with taken as')).length;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  it('doubles its pause after each empty poll, up to maxIdleMs, and keeps polling', async () => {
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, silent, { intervalMs: 25, maxIdleMs: 400 });
    sealer.start();
    // Pauses 25, 50, 100, 200, 400, 400, …: about 7 polls in 1.5 s, where a fixed 25 ms would make 60.
    const polls = await pollsDuring(() => sleep(1500));
    await sealer.stop();
    expect(polls).toBeGreaterThanOrEqual(4);
    expect(polls).toBeLessThanOrEqual(12);
  });

  it('seals events appended in this process soon after their commit, whatever the idle pause', async () => {
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, silent, { intervalMs: 50, maxIdleMs: 60_000 });
    const audit = new OutboxAuditService(systemClock, undefined, () => sealer.wake());
    sealer.start();
    await sleep(1800); // polls at ~0.05, 0.1, 0.2, 0.4, 0.8, 1.6 s; the next one at ~3.2 s
    const orgId = randomUUID();
    await aerie.kernel.db.transaction((trx) => audit.appendMany(trx, [{ orgId, eventType: 'test.wake', businessData: { n: 1 } }, { orgId, eventType: 'test.wake', businessData: { n: 2 } }]));
    // Without the wake this waits for the pause in progress (~1.4 s).
    await expect.poll(() => sealedCount(orgId), { timeout: 800, interval: 25 }).toBe(2);
    // A rolled-back append wakes nothing and leaves nothing to seal.
    await expect(aerie.kernel.db.transaction(async (trx) => {
      await audit.append(trx, { orgId, eventType: 'test.wake', businessData: { n: 3 } });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    await sealer.stop();
    expect(await sealedCount(orgId)).toBe(2);
  });

  it('still seals what another process appended (no wake here) once its idle pause ends', async () => {
    const sealer = new AuditSealer(aerie.kernel.db, systemClock, silent, { intervalMs: 25, maxIdleMs: 300 });
    sealer.start();
    await sleep(700);
    const orgId = randomUUID();
    const elsewhere = new OutboxAuditService(systemClock);
    await elsewhere.append(aerie.kernel.db.knex, { orgId, eventType: 'test.elsewhere', businessData: {} });
    await expect.poll(() => sealedCount(orgId), { timeout: 5000, interval: 50 }).toBe(1);
    await sealer.stop();
  });
});
