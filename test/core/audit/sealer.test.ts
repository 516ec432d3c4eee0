import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { TestAerie } from '../../helpers/harness.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { AuditService } from '../../../core/audit/audit-service.types.ts';
import { AuditSealer } from '../../../core/audit/sealer.ts';
import { readChain } from '../../../core/audit/read-chain.ts';
import { verifyRecords } from '../../../core/audit/chain/index.ts';
import { chainWorkers } from '../../helpers/chain-workers.ts';
import { systemClock } from '../../../core/clock.ts';

describe('core.audit: outbox in the caller transaction, sealed into per-organization chains', () => {
  let aerie: TestAerie;
  let audit: AuditService;
  const orgA = randomUUID();
  const orgB = randomUUID();

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs'] });
    audit = aerie.kernel.container.resolve<AuditService>(coreRefs.audit.id);
  });
  afterAll(() => aerie?.close());

  const db = () => aerie.kernel.db;
  const append = (orgId: string, n: number, type = 'test.event') =>
    db().transaction((trx) => audit.appendMany(trx, Array.from({ length: n }, (_, i) => ({ orgId, eventType: type, businessData: { i, note: 'ünïcødé ✓' } }))));

  it('keeps a committed event and leaves no trace of a rolled-back one', async () => {
    const { id } = await db().transaction((trx) => audit.append(trx, { orgId: orgA, eventType: 'test.committed' }));
    await expect(db().transaction(async (trx) => {
      await audit.append(trx, { orgId: orgA, eventType: 'test.rolled_back' });
      throw new Error('handler failed after appending');
    })).rejects.toThrow('handler failed');
    await aerie.kernel.auditSealer.drain();
    const events = await aerie.sql(`select id, event_type, actor_type, actor_id from core.audit_events where org_id = ?`, [orgA]);
    expect(events).toEqual([{ id, event_type: 'test.committed', actor_type: 'system', actor_id: 'system' }]);
    expect(await aerie.sql(`select * from core.audit_outbox where org_id = ?`, [orgA])).toEqual([]);
  });

  it('gives every organization a gap-free sequence whose hashes verify', async () => {
    await append(orgA, 5);
    await append(orgB, 3);
    await append(orgA, 4);
    await aerie.kernel.auditSealer.drain();
    const a = await readChain(db().knex, orgA);
    const b = await readChain(db().knex, orgB);
    expect(a.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(b.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(verifyRecords(a).ok).toBe(true);
    expect(verifyRecords(b).ok).toBe(true);
    const [head] = await aerie.sql(`select seq, chain_hash from core.audit_heads where org_id = ?`, [orgA]);
    expect(Number(head.seq)).toBe(10);
    expect(head.chain_hash).toBe(a[9].chainHash);
  });

  it('seals each event exactly once when two sealers race, and the worker pool hashes like in-line', async () => {
    const orgC = randomUUID();
    await append(orgC, 300);
    const logger = pino({ level: 'silent' });
    const { workers, tasks } = chainWorkers(2);
    const pooled = new AuditSealer(db(), systemClock, logger, { batchSize: 50, poolThreshold: 1, pool: tasks });
    const inline = new AuditSealer(db(), systemClock, logger, { batchSize: 70 });
    // The kernel's own background sealer races them too.
    await Promise.all([pooled.drain(), inline.drain()]);
    await pooled.stop();
    await inline.stop();
    await workers.close();
    // A drain returns once the rest is locked by another sealer: wait for the kernel's in-flight batch too.
    await aerie.kernel.auditSealer.drain();
    const chain = await readChain(db().knex, orgC);
    expect(chain).toHaveLength(300);
    expect(new Set(chain.map((r) => r.id)).size).toBe(300);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(verifyRecords(chain).ok).toBe(true);
  });

  it('names the first tampered record', async () => {
    const orgD = randomUUID();
    await append(orgD, 6);
    await aerie.kernel.auditSealer.drain();
    await aerie.sql(`update core.audit_events set business_data = jsonb_set(business_data, '{i}', '99') where org_id = ? and seq = 4`, [orgD]);
    const result = verifyRecords(await readChain(db().knex, orgD));
    expect(result.ok).toBe(false);
    expect(result.firstBroken).toMatchObject({ seq: 4, reason: 'payload_hash_mismatch' });
  });
});
